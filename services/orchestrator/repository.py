"""Persistence of sessions, utterances and turns (SQLAlchemy 2 async; SQLite or PostgreSQL).

Every write is idempotent on its natural key, so a retried or resumed turn never duplicates data:
utterances on (session, turn, speaker), turns on (session, turn), the session's turn counter only
advances from `turn_number - 1` to `turn_number` (an optimistic guard under the session lock).

The writes every turn makes (its start, the answer, checkpoints, its completion) are plain Core
statements on a connection: they read no mapped objects back, so the ORM's unit of work and bulk
machinery would only add CPU time on the turn's critical path.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import (
    Table,
    TextClause,
    and_,
    bindparam,
    delete,
    func,
    insert,
    inspect,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, async_sessionmaker
from sqlalchemy.sql.dml import Update

from services.orchestrator.models import SessionRow, TurnCheckpointRow, TurnRow, UtteranceRow
from shared.db import single_writer
from shared.errors import AlreadyExistsError, FailedPreconditionError, NotFoundError
from shared.gen.interview.common.v1 import common_pb2

SESSIONS: Table = SessionRow.__table__  # type: ignore[assignment]
UTTERANCES: Table = UtteranceRow.__table__  # type: ignore[assignment]
TURNS: Table = TurnRow.__table__  # type: ignore[assignment]
CHECKPOINTS: Table = TurnCheckpointRow.__table__  # type: ignore[assignment]

# The statements of every turn, built once with bound parameters: a statement built per call
# generates its cache key on each execute, and `Session.get` or a select of a mapped class goes
# through the ORM's loading machinery; either costs more CPU than SQLite spends on the statement.
# A session is selected by attribute name (`metadata_` is the column `metadata`) and made a
# transient `SessionRow`, which nothing writes back.
_SESSION_COLUMNS = [prop.columns[0].label(prop.key) for prop in inspect(SessionRow).column_attrs]
_GET_SESSION = select(*_SESSION_COLUMNS).where(SESSIONS.c.id == bindparam("sid"))


class Utterance(NamedTuple):
    """A transcript entry as read. A plain named tuple, not the query's Row: a Row's attribute
    lookup is a Python-level call (~1.7 µs, fifteen times a tuple's), and every turn filters the
    whole transcript by turn and speaker."""

    id: str
    session_id: str
    turn_number: int
    speaker: common_pb2.Speaker  # the column holds the enum number
    text: str
    created_at: datetime


_TRANSCRIPT = (
    select(*(UTTERANCES.c[name] for name in Utterance._fields))  # the tuple's order
    .where(UTTERANCES.c.session_id == bindparam("sid"))
    .order_by(UTTERANCES.c.turn_number, UTTERANCES.c.speaker.desc())
)
_TURN_KEY = (TURNS.c.session_id == bindparam("sid")) & (TURNS.c.turn_number == bindparam("turn"))
_TURN_FOR_UPDATE = select(TURNS).where(_TURN_KEY).with_for_update()
_INSERT_TURN = insert(TURNS)
_RESUME_TURN = update(TURNS).where(_TURN_KEY).values(attempts=bindparam("b_attempts"), status="in_progress")
_COMPLETE_TURN = (
    update(TURNS)
    .where(_TURN_KEY)
    .values(
        status="completed",
        result=bindparam("b_result"),
        completed_at=bindparam("b_now"),
        error_code=None,
        error_message=None,
    )
)
_DELETE_CHECKPOINTS = delete(CHECKPOINTS).where(
    CHECKPOINTS.c.session_id == bindparam("sid"), CHECKPOINTS.c.turn_number == bindparam("turn")
)


def _rowcount(result: object) -> int:
    """Rows matched by an UPDATE/DELETE (a CursorResult attribute the generic Result type hides)."""
    return int(getattr(result, "rowcount", 0))


def utc_now() -> datetime:
    """Timezone-aware now (stored as timestamptz on PostgreSQL)."""
    return datetime.now(UTC)


def utterance_id(session_id: str, turn_number: int, speaker: int) -> str:
    """Deterministic utterance id, so a resumed turn reuses the same id (graph idempotency key)."""
    role = "r" if speaker == 2 else "i"
    return f"{session_id}:{turn_number}:{role}"


class OrchestratorRepository:
    """Data access for the orchestrator's own tables."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        # A turn's completion and the checkpoint writer, or two sessions' turns, write at once.
        self._write_lock = asyncio.Lock() if single_writer(engine) else None

    def _queued(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """This process's write queue on SQLite (the lock), nothing on PostgreSQL."""
        return self._write_lock or contextlib.nullcontext()

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        """A write transaction on a connection (committed on exit), queued behind this process's
        other writes on SQLite."""
        async with self._queued(), self._engine.begin() as conn:
            yield conn

    @property
    def engine(self) -> AsyncEngine:
        """The engine (the session lock needs a dedicated connection on PostgreSQL)."""
        return self._engine

    # -- sessions --------------------------------------------------------------------------
    async def create_session(self, row: SessionRow, opening_question: str) -> SessionRow:
        """Insert a session with its opening question (turn 0) in one transaction;
        AlreadyExistsError when its id or its create request id is taken (nothing is written)."""
        # A mapped object (the column defaults are the ORM's), unlike the turn's writes below.
        try:
            async with self._queued(), self._sessions.begin() as db:
                db.add(row)
                await db.flush()
                interviewer = common_pb2.SPEAKER_INTERVIEWER
                await _insert_utterance(
                    await db.connection(), row.id, 0, interviewer, opening_question, row.created_at
                )
        except IntegrityError:
            # A concurrent CreateSession with the same request id (the session id derives from it).
            raise AlreadyExistsError(f"session {row.id} exists already") from None
        return row

    async def get_session(self, session_id: str) -> SessionRow:
        """The session (a transient row: changes go through the repository), or NotFoundError."""
        async with self._engine.connect() as conn:
            row = (await conn.execute(_GET_SESSION, {"sid": session_id})).one_or_none()
        if row is None:
            raise NotFoundError("session", session_id)
        return SessionRow(**row._mapping)

    async def find_by_create_request(self, request_id: str) -> SessionRow | None:
        """The session created by an earlier CreateSession with this request id, if any."""
        async with self._sessions() as db:
            result = await db.execute(select(SessionRow).where(SessionRow.create_request_id == request_id))
            return result.scalar_one_or_none()

    async def list_sessions(
        self, status: str | None, after: tuple[datetime, str] | None, limit: int
    ) -> tuple[list[SessionRow], int]:
        """Up to `limit` sessions, newest first then by id, strictly after the session whose
        (created_at, id) is `after` in that order (keyset pagination); and the total count."""
        query = select(SessionRow)
        count = select(func.count()).select_from(SessionRow)
        if status:
            query = query.where(SessionRow.status == status)
            count = count.where(SessionRow.status == status)
        if after is not None:
            # Spelled out, not a row-value comparison: the two keys sort in opposite directions.
            created, ident = after
            query = query.where(
                or_(
                    SessionRow.created_at < created,
                    and_(SessionRow.created_at == created, SessionRow.id > ident),
                )
            )
        query = query.order_by(SessionRow.created_at.desc(), SessionRow.id).limit(limit)
        async with self._sessions() as db:
            rows = list((await db.execute(query)).scalars())
            total = int((await db.execute(count)).scalar_one())
        return rows, total

    async def update_session(self, session_id: str, **values: Any) -> SessionRow:
        """Set columns of a session (status changes) and return it."""
        values["updated_at"] = utc_now()
        async with self._write() as conn:
            result = await conn.execute(update(SESSIONS).where(SESSIONS.c.id == session_id).values(**values))
            if _rowcount(result) == 0:
                raise NotFoundError("session", session_id)
        return await self.get_session(session_id)

    async def delete_session(self, session_id: str) -> None:
        """Delete a session with its utterances and turns."""
        async with self._write() as conn:
            for table in (CHECKPOINTS, TURNS, UTTERANCES):
                await conn.execute(delete(table).where(table.c.session_id == session_id))
            result = await conn.execute(delete(SESSIONS).where(SESSIONS.c.id == session_id))
            if _rowcount(result) == 0:
                raise NotFoundError("session", session_id)

    # -- utterances ------------------------------------------------------------------------
    async def save_utterance(self, session_id: str, turn_number: int, speaker: int, text: str) -> str:
        """Insert an utterance unless it exists (same key); returns its id."""
        async with self._write() as conn:
            return await _insert_utterance(conn, session_id, turn_number, speaker, text, utc_now())

    async def list_utterances(self, session_id: str) -> list[Utterance]:
        """The transcript in order."""
        async with self._engine.connect() as conn:
            rows = (await conn.execute(_TRANSCRIPT, {"sid": session_id})).all()
        return [Utterance._make(row) for row in rows]

    # -- turns -----------------------------------------------------------------------------
    async def get_turn(self, session_id: str, turn_number: int) -> TurnRow | None:
        """The turn row, if the turn was ever started."""
        async with self._sessions() as db:
            return await db.get(TurnRow, (session_id, turn_number))

    async def list_completed_turns(self, session_id: str) -> list[TurnRow]:
        """Completed turns in order (exports)."""
        async with self._sessions() as db:
            result = await db.execute(
                select(TurnRow)
                .where(TurnRow.session_id == session_id, TurnRow.status == "completed")
                .order_by(TurnRow.turn_number)
            )
            return list(result.scalars())

    async def begin_turn(
        self, session_id: str, turn_number: int, text: str, request_id: str | None
    ) -> TurnRow:
        """Start a turn, or return the earlier attempt of the same turn (to resume it).

        The answer is stored here, before any LLM work, with the turn row and as the respondent's
        utterance of the turn (kept if stored before). A retry must carry the same answer: a
        different text for a turn whose answer is already stored is refused.
        """
        async with self._write() as conn:
            respondent = common_pb2.SPEAKER_RESPONDENT
            key = {"sid": session_id, "turn": turn_number}
            found = (await conn.execute(_TURN_FOR_UPDATE, key)).one_or_none()
            if found is None:
                now = utc_now()
                values = {
                    "session_id": session_id,
                    "turn_number": turn_number,
                    "request_id": request_id or None,
                    "answer_text": text,
                    "status": "in_progress",
                    "attempts": 1,
                    "started_at": now,
                }
                await conn.execute(_INSERT_TURN, [values])
                await _insert_utterance(conn, session_id, turn_number, respondent, text, now)
                return TurnRow(**values)
            row = TurnRow(**found._mapping)
            if row.answer_text != text:
                raise FailedPreconditionError(
                    f"turn {turn_number} already has a stored answer; resubmit the same text to resume it",
                    metadata={"turn_number": str(turn_number)},
                )
            if row.status != "completed":
                row.attempts += 1
                row.status = "in_progress"
                await conn.execute(_RESUME_TURN, {**key, "b_attempts": row.attempts})
                # A turn begun before the answer was stored here has it from its utterance stage.
                await _insert_utterance(conn, session_id, turn_number, respondent, text, utc_now())
            return row

    async def save_checkpoints(
        self, session_id: str, turn_number: int, outputs: Sequence[tuple[str, str]]
    ) -> None:
        """Store completed stages' outputs (stage name, JSON) in one transaction; a stage stored
        already (a concurrent resume of the same turn wrote it first) keeps its first output."""
        if not outputs:
            return
        now = utc_now()
        rows = [
            {
                "session_id": session_id,
                "turn_number": turn_number,
                "stage": stage,
                "payload": payload,
                "created_at": now,
            }
            for stage, payload in outputs
        ]
        # One statement: rows already there (the primary key) are skipped, not overwritten.
        async with self._write() as conn:
            await conn.execute(_INSERT_CHECKPOINTS, rows)

    async def load_checkpoints(self, session_id: str, turn_number: int) -> dict[str, str]:
        """The stored stage outputs of a turn (stage name → JSON)."""
        async with self._sessions() as db:
            result = await db.execute(
                select(TurnCheckpointRow.stage, TurnCheckpointRow.payload).where(
                    TurnCheckpointRow.session_id == session_id, TurnCheckpointRow.turn_number == turn_number
                )
            )
            return {stage: payload for stage, payload in result.all()}

    async def fail_turn(self, session_id: str, turn_number: int, code: str, message: str) -> None:
        """Mark a turn failed; its checkpoints stay for the resume."""
        async with self._write() as conn:
            await conn.execute(
                update(TURNS)
                .where(
                    TURNS.c.session_id == session_id,
                    TURNS.c.turn_number == turn_number,
                    TURNS.c.status != "completed",
                )
                .values(status="failed", error_code=code, error_message=message[:2000])
            )

    async def complete_turn(
        self,
        session_id: str,
        turn_number: int,
        result: bytes,
        session_values: dict[str, Any],
        question: str | None = None,
    ) -> None:
        """Advance the session and store the turn's result atomically (stage 10), with the
        interviewer's `question` as the turn's utterance (kept if a resumed turn stored it before);
        the turn's checkpoints go in the same transaction (nothing is left to resume)."""
        now = utc_now()
        session_values = {**session_values, "turn_count": turn_number, "updated_at": now}
        async with self._write() as conn:
            if question is not None:
                interviewer = common_pb2.SPEAKER_INTERVIEWER
                await _insert_utterance(conn, session_id, turn_number, interviewer, question, now)
            advanced = await conn.execute(
                _advance_session(tuple(sorted(session_values))),
                {
                    **{f"b_{k}": v for k, v in session_values.items()},
                    "sid": session_id,
                    "prev": turn_number - 1,
                },
            )
            if _rowcount(advanced) != 1:
                raise FailedPreconditionError(f"turn {turn_number} was completed concurrently")
            key = {"sid": session_id, "turn": turn_number}
            await conn.execute(_COMPLETE_TURN, {**key, "b_result": result, "b_now": now})
            await conn.execute(_DELETE_CHECKPOINTS, key)

    async def turn_results(self, session_id: str) -> Sequence[bytes]:
        """Serialized TurnResults of the completed turns, in order."""
        return [t.result for t in await self.list_completed_turns(session_id) if t.result is not None]


async def _insert_utterance(
    conn: AsyncConnection, session_id: str, turn_number: int, speaker: int, text: str, now: datetime
) -> str:
    """Insert an utterance in the caller's transaction; one stored already under its key (a retry,
    or a concurrent one that won) is kept as it is. Returns the utterance id."""
    ident = utterance_id(session_id, turn_number, speaker)
    row = {
        "id": ident,
        "session_id": session_id,
        "turn_number": turn_number,
        "speaker": speaker,
        "text": text,
        "created_at": now,
    }
    await conn.execute(_INSERT_UTTERANCE, [row])
    return ident


def _insert_ignoring_duplicates(table: Table) -> TextClause:
    """`INSERT … ON CONFLICT DO NOTHING` of whole rows of `table` (every column a bound parameter,
    typed like the column), valid on SQLite (3.24+) and PostgreSQL alike.

    Built once per table: the dialects' own `insert(...).on_conflict_do_nothing()` constructs have
    no cache key, so SQLAlchemy compiled them again on every execute, a third of the CPU of a
    checkpoint write on SQLite. A text statement is compiled once and then found in the cache."""
    names = [column.name for column in table.columns]
    sql = (
        f"INSERT INTO {table.name} ({', '.join(names)}) "
        f"VALUES ({', '.join(f':{name}' for name in names)}) ON CONFLICT DO NOTHING"
    )
    return text(sql).bindparams(*(bindparam(c.name, type_=c.type) for c in table.columns))


@lru_cache(maxsize=16)
def _advance_session(columns: tuple[str, ...]) -> Update:
    """The UPDATE that sets `columns` of a session whose turn counter is still `prev` (built once
    per set of columns: a turn that ends the session also sets `ended_at`)."""
    return (
        update(SESSIONS)
        .where(SESSIONS.c.id == bindparam("sid"), SESSIONS.c.turn_count == bindparam("prev"))
        .values({SESSIONS.c[c]: bindparam(f"b_{c}", type_=SESSIONS.c[c].type) for c in columns})
    )


_INSERT_UTTERANCE = _insert_ignoring_duplicates(UTTERANCES)
_INSERT_CHECKPOINTS = _insert_ignoring_duplicates(CHECKPOINTS)

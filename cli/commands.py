"""The non-interactive subcommands: start, answer, export, sessions list."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from google.protobuf import json_format
from google.protobuf.message import Message

from cli.actions import export_to_file
from cli.connection import Client
from cli.render import EXPORT_FORMATS, SESSION_STATUSES, note_line, sessions_table, termination_line
from cli.turns import next_answer
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb


def to_json(message: Message) -> str:
    """A message as indented JSON with the .proto field names."""
    return json_format.MessageToJson(message, preserving_proto_field_name=True, indent=2)


def cmd_start(client: Client, args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Create a session: prints its id, then the opening question."""
    reply = client.create_session(args.concept_id, max_turns=args.max_turns, methodology=args.methodology)
    if args.json:
        out.write(to_json(reply) + "\n")
    else:
        out.write(f"{reply.session.session_id}\n{reply.opening_question}\n")
    return 0


def cmd_answer(client: Client, args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Answer the session's next turn (turn_count + 1): prints the next question and the note."""
    session = client.get_session(args.session_id).session
    answer = next_answer(args.text, session.turn_count)
    result = client.submit_turn(args.session_id, answer.turn_number, answer.text, answer.request_id)
    if args.json:
        out.write(to_json(result) + "\n")
        return 0
    out.write(f"{result.next_question}\n  {note_line(result)}\n")
    if not result.should_continue:
        out.write(termination_line(result.termination_reason) + "\n")
    return 0


def cmd_export(client: Client, args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Export a session to a file (-o) or to standard output."""
    if args.output is None:
        content = client.export(args.session_id, EXPORT_FORMATS[args.format]).content
        out.write(content if content.endswith("\n") else content + "\n")
        return 0
    size = export_to_file(client, args.session_id, args.format, Path(args.output))
    out.write(f"Exported {args.format} to {args.output} ({size} bytes).\n")
    return 0


def cmd_sessions_list(client: Client, args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """One page of sessions as a table."""
    status = SESSION_STATUSES[args.status] if args.status else pb.SESSION_STATUS_UNSPECIFIED
    reply = client.list_sessions(args.page_size, status, args.page_token)
    if not reply.sessions:
        out.write("No sessions.\n")
        return 0
    for line in sessions_table(reply.sessions):
        out.write(line + "\n")
    footer = f"{len(reply.sessions)} of {reply.total_size} sessions"
    if reply.next_page_token:
        footer += f"; next page: --page-token {reply.next_page_token}"
    out.write(footer + "\n")
    return 0

"""Operations shared by the interactive loop and the subcommands."""

from __future__ import annotations

from pathlib import Path

from cli.connection import Client
from cli.graph_tree import render_graph
from cli.render import EXPORT_FORMATS


class ExportWriteError(Exception):
    """The export arrived but could not be written to the file."""


def export_to_file(client: Client, session_id: str, format_name: str, path: Path) -> int:
    """Export the session in `format_name` to `path`; returns the number of bytes written."""
    reply = client.export(session_id, EXPORT_FORMATS[format_name])
    data = reply.content.encode("utf-8")
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise ExportWriteError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return len(data)


def graph_lines(client: Client, session_id: str) -> list[str]:
    """The session graph as a tree (plus a canonical summary when slots are on)."""
    reply = client.session_graph(session_id)
    lines = render_graph(reply.nodes, reply.edges)
    if reply.slots:
        state = reply.canonical_state
        lines.append(
            f"Canonical: {state.concept_count} slots ({state.candidate_count} candidates), "
            f"{state.edge_count} edges"
        )
    return lines

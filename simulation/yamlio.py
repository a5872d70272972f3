"""Reading the simulation's YAML files with errors that name the file and each bad field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from shared.errors import FieldViolation, InvalidArgumentError


class ConfigFileError(InvalidArgumentError):
    """An invalid persona or scenario file; the message names the file and every bad field."""

    kind = "config"

    def __init__(self, file: Path | str, violations: list[FieldViolation]) -> None:
        self.file = str(file)
        details = "; ".join(f"{v.field}: {v.description}" for v in violations)
        super().__init__(f"invalid {self.kind} file {self.file}: {details}", violations)

    @classmethod
    def single(cls, file: Path | str, field: str, description: str) -> ConfigFileError:
        """An error with one field violation."""
        return cls(file, [FieldViolation(field, description)])


def violations_of(exc: ValidationError) -> list[FieldViolation]:
    """Pydantic errors as field violations with dotted paths (`answer_length.min_words`)."""
    out = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "<file>"
        out.append(FieldViolation(field, str(err["msg"])))
    return out


def read_yaml_mapping(path: Path, error: type[ConfigFileError]) -> dict[str, Any]:
    """A YAML file's top-level mapping; unreadable files, syntax errors and non-mappings raise `error`."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise error.single(path, "<file>", f"YAML syntax error: {exc}") from exc
    except OSError as exc:
        raise error.single(path, "<file>", f"cannot read: {exc.strerror}") from exc
    if not isinstance(data, dict):
        raise error.single(path, "<file>", "the top level must be a mapping")
    return data

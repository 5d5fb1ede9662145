"""Markdown tables."""
from typing import Callable, Sequence


def table(header: Sequence[str], rows: Sequence[Sequence], formats: Sequence[Callable] = ()) -> str:
    """A markdown table; formats[i] turns column i's values into text (str by default)."""
    formats = list(formats) + [str] * (len(header) - len(formats))
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        out.append("| " + " | ".join(f(x) for f, x in zip(formats, row)) + " |")
    return "\n".join(out)


def number(x, spec: str, missing: str = "n/r") -> str:
    """format(x, spec), or `missing` for None."""
    return missing if x is None else format(x, spec)

"""``driftwood figures --out DIR``: the tutorials' key figures as SVG and PDF, for slides."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from reference.evaluation.catalog import UsageError
from reference.evaluation.cli._errors import Interrupted
from reference.evaluation.cli._output import with_examples
from reference.evaluation.figures import FIGURES, FORMATS

__all__ = ["cmd_figures", "epilog"]


def figure_list() -> str:
    """Every figure's name and what it shows, for the ``--help`` text."""
    width = max(len(name) for name in FIGURES)
    lines = ["figures (computed offline from generated streams and shipped data):"]
    lines += [f"  {name:<{width}}  {spec.description}" for name, spec in FIGURES.items()]
    return "\n".join(lines)


def epilog() -> str:
    """The ``--help`` text after the options: examples, then every figure's name."""
    return str(_help_keywords()["epilog"])


def _help_keywords() -> dict[str, object]:
    keywords = with_examples(
        ("driftwood figures --out slides/figures", "all, SVG and PDF"),
        ("driftwood figures --out figs --format pdf --only banana-covers parabola-fit",
         "two figures, PDF only"),
        ("driftwood figures --list", "names and what they show"),
        description="Draw the tutorials' key figures as vector files (SVG and PDF), offline, "
        "from generated streams and the shipped data.",
    )
    keywords["epilog"] = f"{keywords['epilog']}\n\n{figure_list()}"
    return keywords


def _formats(text: str) -> list[str]:
    formats = [f.strip().lower() for f in text.split(",") if f.strip()]
    unknown = sorted(set(formats) - {"svg", "pdf", "png", "eps"})
    if not formats or unknown:
        raise UsageError(f"--format takes svg, pdf, png or eps (comma-separated), got {text!r}")
    return formats


def cmd_figures(args: argparse.Namespace) -> int:
    """List the figures, or draw the chosen ones into ``--out`` with one line per figure."""
    if args.list:
        for name, spec in FIGURES.items():
            print(f"{name:<20} {spec.description}  [tutorials/{spec.tutorial}.md]")
        return 0
    if args.out is None:
        raise UsageError("figures needs --out DIR (or --list)")
    formats = _formats(args.format)
    names = list(args.only) if args.only else list(FIGURES)
    unknown = [name for name in names if name not in FIGURES]
    if unknown:
        raise UsageError(f"no figure {', '.join(map(repr, unknown))}; known: {', '.join(FIGURES)}")
    if not args.scale > 0.0:
        raise UsageError(f"--scale must be > 0, got {args.scale}")
    from reference.evaluation.figures import draw, save

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    total = time.perf_counter()
    kept: list[Path] = []
    for i, name in enumerate(names, 1):
        start = time.perf_counter()
        try:
            fig = draw(name, scale=args.scale)
            save(fig, out / name, formats, written=kept)
        except KeyboardInterrupt:
            raise Interrupted(_interrupted(kept, names[i - 1:], out)) from None
        seconds = time.perf_counter() - start
        written = ", ".join(p.name for p in kept if p.stem == name)
        print(f"[{i}/{len(names)}] {name:<20} {seconds:5.1f} s  {written}", flush=True)
    print(f"{len(names)} figures in {time.perf_counter() - total:.1f} s, written to {out}",
          file=sys.stderr)
    return 0


def _interrupted(kept: list[Path], left: list[str], out: Path) -> str:
    """The interrupt line: which files are whole in ``out`` (every file is written
    atomically, so there is no partial one) and how to draw the rest."""
    if kept:
        names = ", ".join(p.name for p in kept)
        done = f"kept {len(kept)} whole file{'s' if len(kept) != 1 else ''} in {out} ({names})"
    else:
        done = f"no figure was written to {out}"
    return (f"{done}; not finished: {', '.join(left)} (rerun with --only "
            f"{' '.join(left)} to draw them)")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``figures`` on the ``driftwood`` subcommand parser."""
    figures = sub.add_parser(
        "figures", help="the tutorials' key figures as SVG/PDF for slides",
        **_help_keywords(),  # type: ignore[arg-type]
    )
    figures.add_argument("--out", default=None, metavar="DIR", help="output directory")
    figures.add_argument("--format", default=",".join(FORMATS),
                         help="comma-separated formats (default: svg,pdf; also png, eps)")
    figures.add_argument("--only", nargs="+", default=None, metavar="NAME",
                         help="draw only these figures (default: all)")
    figures.add_argument("--scale", type=float, default=1.0,
                         help="fraction of the tutorial's stream and particle sizes "
                         "(default 1.0; e.g. 0.2 for a quick preview)")
    figures.add_argument("--list", action="store_true", help="list the figures and exit")
    figures.set_defaults(handler=cmd_figures)

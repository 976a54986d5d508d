"""The ``driftwood`` command line: run a model on a built-in stream, or compare backends.

Usage::

    driftwood run                               # SGT on 50,000 Friedman-1 rows
    driftwood run --model majority --stream sea --n 20000 --curve sea.png
    driftwood run --model sgt --backend fast --stream drift-fast -p max_depth=4
    driftwood compare                           # SGT, both backends, 1,000 rows
    driftwood compare --model abacoc --stream sea --n 2000
    driftwood list                              # models (per backend) and streams
    driftwood grid ag13-aba --jobs 2            # a shipped experiment grid
    driftwood COMMAND --help                    # options, with examples

``python -m reference ...`` and ``python -m reference.evaluation.cli ...`` are the same
program. ``run`` evaluates the model prequentially (test then train,
:func:`reference.evaluation.prequential.prequential`) and prints a summary table;
``compare`` runs the ``reference`` and ``fast`` twins in lockstep on the same stream,
compares every prediction and (every ``--snapshot-every`` steps) the full ``snapshot()``
exactly, and reports the agreement and the speed ratio. Its default stream length is
1,000 rows, 200 for the dynamic trees, whose reference backend is slow.

How the commands behave:

- **Progress.** ``run``, ``compare`` and ``grid`` show their progress on stderr
  (``--no-progress``: none): a bar on a terminal, elsewhere (a log, a pipe) a plain line
  every 5 s with the time left, e.g. ``[compare sgt] 600/1000 rows, 35 s elapsed, ~23 s
  left``, and a last line at the end.
- **Ctrl-C** ends a command with one line on stderr saying what was kept and how to go
  on, and exit status 130. A run or a comparison keeps nothing (rerun with a smaller
  ``--n``); a grid keeps every finished cell and the line gives the command that
  resumes it.
- **Errors** are one line ``driftwood: error: ...`` that says what to do next: the
  models, streams, data sets or shipped grids to choose from, the ``pip install`` line of
  a missing optional dependency (``grid`` needs the ``grid`` extra), how to install a
  data set without network.
- **Tables** fit 100 columns; a metric that needs it (``alpd`` of ``-inf``) is
  explained in a note under the table.

Models are looked up by class name in the chosen backend package, so a model appears
here as soon as it is exported by ``reference``/``fast``. The baselines ``mean``,
``majority`` and ``nn3`` belong to the evaluation kit and have no fast twin.

Public API (signatures):

- ``main(argv=None) -> int``: the console script (exit status: 0 success, 1 the
  backends disagree, 2 usage error or model/backend/extra unavailable, 130 Ctrl-C, 141
  stdout closed by its reader, e.g. a pipe into ``head``, quietly).
- ``build_parser() -> argparse.ArgumentParser``.

One module per subcommand (:mod:`~reference.evaluation.cli.run`,
:mod:`~reference.evaluation.cli.compare`, :mod:`~reference.evaluation.cli.listing`,
:mod:`~reference.evaluation.cli.data`, :mod:`~reference.evaluation.cli.grid`); shared by
them: :mod:`~reference.evaluation.cli._output` (tables within 100 columns, ``--help``
examples) and :mod:`~reference.evaluation.cli._errors` (Ctrl-C, missing extras). The
models and streams they offer are those of :mod:`reference.evaluation.catalog`, and
``compare`` uses the lockstep driver of :mod:`reference.evaluation.compare`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from reference.evaluation.catalog import UsageError
from reference.evaluation.cli._errors import Interrupted, report_interrupt
from reference.evaluation.cli._notice import say_once
from reference.evaluation.cli.parser import COMMANDS, build_parser

__all__ = ["build_parser", "main"]


BROKEN_PIPE_STATUS = 141
"""Exit status when the reader of stdout went away (``driftwood exercise list | head``):
128 + SIGPIPE, what a shell reports for a program that signal ended."""


def _quiet_stdout() -> None:
    """Point stdout at ``os.devnull`` so that the interpreter's last flush of output nobody
    reads raises nothing (the Python docs' note on SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout is no file (a test's capture): nothing left to flush to a pipe


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``driftwood`` console script; returns the exit status.

    With no subcommand, ``run`` with its defaults (a stochastic gradient tree on 50,000
    rows of Friedman-1, or the running-mean baseline if no backend has it). When the
    reader of stdout goes away early (a pipe into ``head``), the command stops quietly
    with status :data:`BROKEN_PIPE_STATUS`, without a message or traceback.

    Examples
    --------
    >>> main(["run", "--model", "mean", "--stream", "parabola", "--n", "500"])  # doctest: +ELLIPSIS
    model    mean (RunningMean)
    ...
    rmse ...
    0
    """
    try:
        status = _main(argv)
        sys.stdout.flush()        # here, not at exit, so that a closed pipe is seen now
    except BrokenPipeError:
        _quiet_stdout()
        return BROKEN_PIPE_STATUS
    return status


def _main(argv: Sequence[str] | None) -> int:
    """:func:`main` without the closed-pipe handling."""
    arguments: list[str] = []
    try:
        parser = build_parser()
        arguments = list(sys.argv[1:] if argv is None else argv)
        if not arguments or arguments[0] not in (*COMMANDS, "-h", "--help", "--version"):
            arguments = ["run", *arguments]
        say_once()                # an install without the C backend: said once
        args = parser.parse_args(arguments)
        status: int = args.handler(args)
    except BrokenPipeError:
        raise                     # the reader went away: main stops quietly
    except Interrupted as err:
        return report_interrupt(str(err))
    except KeyboardInterrupt:
        return report_interrupt(None)
    except (UsageError, FileNotFoundError) as err:
        print(f"driftwood: error: {err}", file=sys.stderr)
        return 2
    except MemoryError:
        print("driftwood: error: not enough memory for this command: use a smaller --n "
              "(or fewer grid cells, or a data set with fewer columns)", file=sys.stderr)
        return 2
    except (ValueError, OSError, OverflowError, RecursionError) as err:
        # bad input found below the command (a file's contents, a value): one line that
        # names it, never a traceback
        command = arguments[0] if arguments else "run"
        text = " ".join(str(err).split()) or type(err).__name__
        print(f"driftwood: error: {text} (fix the input named here; `driftwood {command} "
              "--help` lists what each option accepts)", file=sys.stderr)
        return 2
    return status

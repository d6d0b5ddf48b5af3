"""``python -m rldp_models.cli`` runs the ``rldp`` command line.

An interrupt while the command line is being imported is its one line and exit code
130 too (after that, :func:`rldp_models.cli.main` handles it); once the command is done,
an interrupt is ignored, so that one arriving while the interpreter shuts down (when
Python has put SIGINT's default action back) cannot replace the command's exit code.
"""

import signal
import sys

try:
    from rldp_models.cli import main
except KeyboardInterrupt:
    exec("")  # clears CPython's unhandled-interrupt mark (cli._forget_unhandled_interrupt)
    sys.stderr.write("rldp: interrupted\n")
    raise SystemExit(130) from None

code = main()
signal.signal(signal.SIGINT, signal.SIG_IGN)
raise SystemExit(code)

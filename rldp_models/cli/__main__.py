"""``python -m rldp_models.cli`` runs the ``rldp`` command line.

An interrupt while the command line is being imported is its one line and exit code
130 too (after that, :func:`rldp_models.cli.main` handles it).
"""

import sys

try:
    from rldp_models.cli import main
except KeyboardInterrupt:
    exec("")  # clears CPython's unhandled-interrupt mark (cli._forget_unhandled_interrupt)
    sys.stderr.write("rldp: interrupted\n")
    raise SystemExit(130) from None

raise SystemExit(main())

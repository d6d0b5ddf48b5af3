"""``python -m rldp_models.cli`` runs the ``rldp`` command line."""

from rldp_models.cli import main

raise SystemExit(main())

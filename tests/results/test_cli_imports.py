"""The subcommands of issue 16 stay cheap to import: ``rldp X --help`` loads no solver stack."""

from __future__ import annotations

import subprocess
import sys

MODULES = ("solve", "verify", "protocol", "mechanism", "mechanism_optimal")


def test_cli_modules_import_no_heavy_library() -> None:
    code = ("import sys\n"
            + "".join(f"import rldp_models.cli.{m}\n" for m in MODULES)
            + "heavy = [m for m in ('cvxpy', 'scipy', 'pyomo', 'mpmath', 'pandas', 'solvers',"
              " 'rldp_models.programs') if m in sys.modules]\n"
            + "print(','.join(heavy))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == ""


def test_unary_encoding_settings_match_the_library() -> None:
    from rldp_models.cli.mechanism import UE_SETTINGS
    from rldp_models.mechanisms.unary_encoding import SETTINGS

    assert UE_SETTINGS == SETTINGS

"""Runs the worker: python pyrometer_engine REQUEST.json (the folder, or this file)."""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the installed folder, nor in the user's

# The folder above the package goes first on the path, in place of the package's own (which a
# script's run puts there), so that no module of ours shadows one of the user's model.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[0] = os.path.dirname(_here)

from pyrometer_engine.serving import main  # noqa: E402

sys.exit(main(sys.argv))

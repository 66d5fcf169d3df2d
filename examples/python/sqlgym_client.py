"""The module name the client had before it became the ``sqlgym`` package.

``from sqlgym_client import Client, SQLEnv`` keeps working (this module
is installed beside the package); new code imports ``sqlgym``.
"""

from sqlgym.client import *  # noqa: F401,F403
from sqlgym.client import __all__  # noqa: F401

"""The games tourney plays, each a package with its engine (see :mod:`games.registry`).

Importing the package first lets :mod:`games.native` serve the compiled build of an engine's
hot modules, when one matching the sources exists.
"""

from games import native as _native

_native.install()

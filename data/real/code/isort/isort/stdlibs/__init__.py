from . import all as _all
from . import py2, py3, py27, py36, py37, py38, py39, py310, py311, py312, py313, py314, py315

__all__ = (
    "_all",
    "py2",
    "py3",
    "py27",
    "py36",
    "py37",
    "py38",
    "py39",
    "py310",
    "py311",
    "py312",
    "py313",
    "py314",
    "py315",
)

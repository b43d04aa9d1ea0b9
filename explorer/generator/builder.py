"""The generators build with the one PEG builder (``explorer.peg.builder.Builder``) into
the one ``Arena`` the engine runs on; these are the names this module used to define."""

from explorer.peg.arena import Arena
from explorer.peg.builder import Builder as PegBuilder
from explorer.peg.builder import Operand
from explorer.peg.nodes import INVALID_PARSER_ID

__all__ = ["INVALID_PARSER_ID", "Arena", "Operand", "PegBuilder"]

"""The model layer: encodings, value networks, pubeval. Networks know boards, not search.

Every probability here is for the player on roll (row 1 of a board), as
``[win, win gammon, win backgammon, lose gammon, lose backgammon]``.
"""

from bgai.model.encoding import ENCODINGS, Encoding, get_encoding
from bgai.model.net import SplitNet, ValueNet, build_net, check_spec
from bgai.model.probs import cubeless_equity, invert, probs_from_logits
from bgai.model.pubeval import pubeval_inputs, pubeval_scores

__all__ = [
    "ENCODINGS",
    "Encoding",
    "SplitNet",
    "ValueNet",
    "build_net",
    "check_spec",
    "cubeless_equity",
    "get_encoding",
    "invert",
    "probs_from_logits",
    "pubeval_inputs",
    "pubeval_scores",
]

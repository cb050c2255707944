"""Transposition keys of game states: equal keys must mean equal subtrees.

A transposition table (``search.transposition``) treats two nodes with the same key and depth as
one: a key that leaves out part of a state silently merges positions with different values.
OpenSpiel's text of a state (``str(state)``) is not always the whole state: Einstein würfelt
nicht's text is the board alone (the die just rolled and the player to move are not in it), so
keying it by its text gives wrong values.  So a game's key is declared, not guessed:

* ``STATE_KEYS``: the games whose whole state starbench knows how to key, by OpenSpiel short
  name, each with why its key is complete:

  - ``pig``: its text holds every field of the state (both scores, the turn total, the player
    whose turn it is, and "(rolling)" at a chance node; ``pig.cc``'s ``ToString``), so the key
    is a digest of the text (``state_text_key``);
  - ``einstein_wurfelt_nicht``: the board (its text), the player to move, the set-up phase and
    whose turn follows a die roll (both from the history's length: two set-up outcomes, then a
    roll and a move per turn, players alternating), and at a decision node its legal actions
    (what the die roll decides; after the move the die no longer matters);

* every other OpenSpiel game: the action history, which is exact (equal keys only for equal
  histories) but finds no transpositions in a tree, so a table there saves nothing (its best
  move still orders iterative deepening);
* starbench's own states (backgammon, tic-tac-toe): their ``transposition_text()`` or their
  text, which those classes write to hold the whole state.

A key function covers the whole state, the node's kind and the player to move included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starbench.search.transposition import text_key


def state_text_key(state: Any) -> int:
    """A 64-bit digest of the node's kind, the player to move and the state's text: complete
    where the text holds the whole state (pig's does).  The key the committed pig studies were
    computed with (their counters depend on where entries land in the table)."""
    return text_key(f"{int(state.is_chance_node())}|{state.current_player()}|{state}")


def einstein_key(state: Any) -> int:
    """Einstein würfelt nicht's whole state (see the module docstring)."""
    h = len(state.history())
    phase = min(h, 2)  # 0 and 1: the two set-up outcomes; 2: play
    turn = (h // 2) % 2  # in play, whose turn follows a roll alternates every two actions
    chance = state.is_chance_node()
    legal = "" if chance else ",".join(map(str, state.legal_actions()))
    return text_key(f"{int(chance)}|{state.current_player()}|{phase}|{turn}|{legal}|{state}")


def history_key(state: Any) -> int:
    """The action history: exact for any game, and no two nodes of a tree share it."""
    return text_key("history|" + ",".join(map(str, state.history())))


#: OpenSpiel short name -> the key of its whole state (see the module docstring).
STATE_KEYS: dict[str, Callable[[Any], int]] = {
    "pig": state_text_key,
    "einstein_wurfelt_nicht": einstein_key,
}


def openspiel_key(short_name: str) -> tuple[Callable[[Any], int], bool]:
    """(the key of a state of the OpenSpiel game ``short_name``, whether it finds
    transpositions: False for the history key of an undeclared game)."""
    if short_name in STATE_KEYS:
        return STATE_KEYS[short_name], True
    return history_key, False

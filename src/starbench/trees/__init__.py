"""Trees: the protocol, explicit JSON trees and the lazy random regular generator."""

from starbench.trees.explicit import ExplicitTree, dumps_tree, load_tree, loads_tree
from starbench.trees.protocol import Kind, Tree
from starbench.trees.regular import GENERATOR_VERSION, RegularTree, RegularTreeSpec

__all__ = [
    "GENERATOR_VERSION",
    "ExplicitTree",
    "Kind",
    "RegularTree",
    "RegularTreeSpec",
    "Tree",
    "dumps_tree",
    "load_tree",
    "loads_tree",
]

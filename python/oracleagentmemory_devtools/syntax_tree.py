"""The parser's syntax tree as Python objects, with a source position on every node.

``parseora.parse(..., tree=True)`` returns the tree as indented text (``Kind`` for an
inner node, ``Kind "token text"`` for a leaf) without positions. The leaves are the
statement's tokens in order, so aligning them with ``parseora.tokenize`` gives each leaf,
and hence each node, its line and column in the file: every later check can then point at
the exact place it complains about.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

#: Token kinds that never appear as tree leaves.
TRIVIA_KINDS = frozenset({"Whitespace", "LineComment", "BlockComment"})


@dataclass
class Node:
    """A syntax tree node: ``kind``, leaf ``text`` (None for inner nodes), children, position."""

    kind: str
    text: str | None = None
    children: list[Node] = field(default_factory=list)
    line: int = 0
    col: int = 0

    @property
    def is_leaf(self) -> bool:
        return self.text is not None

    def walk(self) -> Iterator[Node]:
        """This node and every descendant, depth first, in source order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def leaves(self) -> Iterator[Node]:
        """The tokens under this node, in source order."""
        return (node for node in self.walk() if node.is_leaf)

    def find_all(self, *kinds: str) -> Iterator[Node]:
        """Descendants (and self) of the given kinds, in source order."""
        return (node for node in self.walk() if node.kind in kinds)

    def child(self, *kinds: str) -> Node | None:
        """The first direct child of one of ``kinds``."""
        return next((c for c in self.children if c.kind in kinds), None)

    def children_of(self, *kinds: str) -> list[Node]:
        """Direct children of the given kinds."""
        return [c for c in self.children if c.kind in kinds]

    def words(self) -> list[str]:
        """The leaf texts, in order."""
        return [leaf.text or "" for leaf in self.leaves()]

    def source(self) -> str:
        """The node's tokens joined by single spaces (comments and layout dropped)."""
        return " ".join(self.words())

    def upper_words(self) -> list[str]:
        """Leaf texts in upper case: PL/SQL keywords and plain names are case-insensitive."""
        return [w.upper() for w in self.words()]


def identifier(text: str) -> str:
    """The name Oracle stores for an identifier token: quoted kept as written, plain upper."""
    if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    return text.upper()


def name_parts(node: Node) -> list[str]:
    """The dotted parts of a ``NameRef`` (``a.b.c`` -> ``['A', 'B', 'C']``), normalised."""
    return [identifier(leaf.text or "") for leaf in node.children
            if leaf.is_leaf and leaf.kind in ("Ident", "QuotedIdent")]


def parse_tree_text(tree_text: str) -> Node:
    """Build the node tree from parseora's indented text form."""
    root: Node | None = None
    stack: list[tuple[int, Node]] = []
    for raw in tree_text.splitlines():
        if not raw.strip():
            continue
        depth = (len(raw) - len(raw.lstrip(" "))) // 2
        body = raw.strip()
        kind, _, rest = body.partition(" ")
        node = Node(kind=kind, text=json.loads(rest) if rest else None)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            stack[-1][1].children.append(node)
        else:
            root = node
        stack.append((depth, node))
    if root is None:
        raise ValueError("empty syntax tree")
    return root


def attach_positions(root: Node, tokens: list[dict], line: int, col: int) -> None:
    """Give every node the file position of its first token.

    ``tokens`` come from ``parseora.tokenize`` of the statement text, which starts at file
    position ``line``/``col``. Leaves and tokens are matched in order by text; a leaf the
    parser invented (none are known) keeps the previous leaf's position.
    """
    significant = [t for t in tokens if t["kind"] not in TRIVIA_KINDS]
    index = 0
    last = (line, col)
    for leaf in root.leaves():
        probe = index
        while probe < len(significant) and significant[probe]["text"] != leaf.text:
            probe += 1
        if probe < len(significant):
            token = significant[probe]
            index = probe + 1
            token_line = token["line"]
            last = (line + token_line - 1,
                    col + token["col"] - 1 if token_line == 1 else token["col"])
        leaf.line, leaf.col = last
    _propagate(root)


def _propagate(root: Node) -> None:
    """Inner nodes take the position of their first leaf (iterative: trees can be deep)."""
    for node in reversed(list(root.walk())):
        if node.children:
            first = node.children[0]
            node.line, node.col = first.line, first.col

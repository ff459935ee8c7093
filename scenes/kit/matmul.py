"""A matrix product filled in entry by entry: row i of the left factor meets column j of the
right one, and entry (i, j) of the product appears where they meet."""

from __future__ import annotations

from manim import Create, ReplacementTransform

from scenes.kit import palette
from scenes.kit.matrix import MatrixMob


class ProductFill:
    """Steps that fill `product` (a MatrixMob drawn with its real entries, initially hidden)
    from `left` @ `right`, row by row. `step(k)` returns the animations of the k-th entry:
    the highlight boxes move to row i and column j, and entry (i, j) fades in."""

    def __init__(self, left: MatrixMob, right: MatrixMob, product: MatrixMob, color=palette.HIGHLIGHT):
        rows, cols = product.values.shape
        if (
            left.values.shape[0] != rows
            or right.values.shape[1] != cols
            or left.values.shape[1] != right.values.shape[0]
        ):
            raise ValueError(
                f"product fill: {left.values.shape} @ {right.values.shape} cannot give {product.values.shape}"
            )
        self.left, self.right, self.product, self.color = left, right, product, color
        self.order = [(i, j) for i in range(rows) for j in range(cols)]
        self.row_box = None
        self.col_box = None

    def __len__(self) -> int:
        return len(self.order)

    def hide_entries(self) -> None:
        """Make every product entry transparent (the brackets stay), ready to be filled."""
        for row in self.product.entries:
            for entry in row:
                entry.set_opacity(0.0)

    def step(self, k: int) -> list:
        i, j = self.order[k]
        row_box = self.left.highlight_row(i, color=self.color)
        col_box = self.right.highlight_column(j, color=self.color)
        # The entry is already on screen, transparent: animating its opacity keeps it inside
        # the product group (FadeIn would re-add it to the scene as a separate mobject).
        anims = [self.product.entries[i][j].animate.set_opacity(1.0)]
        if self.row_box is None:
            anims += [Create(row_box), Create(col_box)]
        else:
            anims += [ReplacementTransform(self.row_box, row_box), ReplacementTransform(self.col_box, col_box)]
        self.row_box, self.col_box = row_box, col_box
        return anims

    def boxes(self) -> list:
        """The highlight boxes on screen after the last step (to fade them out)."""
        return [b for b in (self.row_box, self.col_box) if b is not None]

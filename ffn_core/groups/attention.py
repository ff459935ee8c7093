"""Numbers of the scene «attention»: every stage of the fact model's first attention layer
on "el limón es ácido", per head (``ffn_core.attention_walk.solve()``).

The whole walk is also registered as the dataset ``attention.walk`` (the scene draws its
matrices and asks it which token each head looks at).

Heads are numbered from 1 in the keys, as on screen ("cabeza 1"). Matrices are tuples of
rows; rows are the sentence's tokens in order. The model's width, head count and the scale
1/sqrt(head_dim) are already registered as memory.d_model, memory.n_heads and
memory.attention.scale (the same model; tests check they agree).
"""

from __future__ import annotations

from ffn_core.registry import FRACTION, WIDTH, Dataset, Number

PREFIX = "attention"


def numbers() -> tuple[Number, ...]:
    from ffn_core.attention_walk import FOCUS_QUERY, solve

    walk = solve()
    call = "ffn_core.attention_walk.solve()"
    found = [
        Number("attention.layer_number", walk.layer + 1, "block (1-based)", f"{call}.layer + 1"),
        Number("attention.head_dim", walk.head_dim, WIDTH, f"{call}.head_dim"),
        Number("attention.input", walk.input, "matrix (tokens x d_model)", f"{call}.input"),
        Number(
            "attention.focus_query",
            FOCUS_QUERY,
            "word (the query row the lecture follows)",
            "ffn_core.attention_walk.FOCUS_QUERY",
        ),
    ]
    for head in walk.heads:
        name, at = f"attention.head{head.head + 1}", f"{call}.heads[{head.head}]"
        found += [
            Number(f"{name}.q", head.q, "matrix (tokens x head_dim)", f"{at}.q"),
            Number(f"{name}.k", head.k, "matrix (tokens x head_dim)", f"{at}.k"),
            Number(f"{name}.v", head.v, "matrix (tokens x head_dim)", f"{at}.v"),
            Number(f"{name}.scores", head.scores, "matrix (query x key)", f"{at}.scores"),
            Number(f"{name}.scaled", head.scaled, "matrix (query x key)", f"{at}.scaled"),
            Number(f"{name}.visible", head.visible, "matrix of 1 (seen) / 0 (masked)", f"{at}.visible"),
            Number(f"{name}.weights", head.weights, "matrix (query x key), rows sum to 1", f"{at}.weights"),
            Number(f"{name}.row_sums", head.row_sums, "sum of each weight row", f"{at}.row_sums"),
            Number(f"{name}.output", head.output, "matrix (tokens x head_dim)", f"{at}.output"),
        ]
    # What the narration says about the row of "es" (the word that must produce the answer).
    found += [
        Number(
            "attention.head1.score_es_limon",
            walk.score(0, FOCUS_QUERY, "limón"),
            "q . k",
            f"{call}.score(0, 'es', 'limón')",
        ),
        Number(
            "attention.head2.weight_es_el", walk.weight(1, FOCUS_QUERY, "el"), FRACTION, f"{call}.weight(1, 'es', 'el')"
        ),
    ]
    return tuple(found)


def datasets() -> tuple[Dataset, ...]:
    from ffn_core.attention_walk import solve

    return (
        Dataset(
            "attention.walk",
            solve(),
            "the sentence's tokens and every stage of each head (q, k, v, scores, weights, output)",
            "ffn_core.attention_walk.solve()",
        ),
    )

"""Numbers of the approximation scene: a curve fitted by more and more ReLU neurons
(``ffn_core.approx.fit_all``), the error shrinking with each; the fits themselves are the
dataset ``approx.fits``."""

from __future__ import annotations

from ffn_core.registry import Dataset, Number

PREFIX = "approx"


def numbers() -> tuple[Number, ...]:
    from ffn_core.approx import INTERVAL, fit_all

    result = fit_all()
    call = "ffn_core.approx.fit_all()"
    found = [
        Number("approx.interval", INTERVAL, "x units (low, high) of the fitted curve", "ffn_core.approx.INTERVAL"),
        Number("approx.neuron_counts", tuple(f.n_neurons for f in result.fits), "neurons", f"{call}.fits[*].n_neurons"),
        Number(
            "approx.rms_error", tuple(f.rms_error for f in result.fits), "y units (RMS)", f"{call}.fits[*].rms_error"
        ),
        Number(
            "approx.max_error",
            tuple(f.max_error for f in result.fits),
            "y units (max abs)",
            f"{call}.fits[*].max_error",
        ),
    ]
    for fit in result.fits:
        found += [
            Number(
                f"approx.n{fit.n_neurons}.rms_error",
                fit.rms_error,
                "y units (RMS)",
                f"{call}.fit({fit.n_neurons}).rms_error",
            ),
            Number(
                f"approx.n{fit.n_neurons}.folds", len(fit.folds), "kinks", f"len({call}.fit({fit.n_neurons}).folds)"
            ),
            Number(
                f"approx.n{fit.n_neurons}.neurons", fit.n_neurons, "neurons", f"{call}.fit({fit.n_neurons}).n_neurons"
            ),
        ]
    first, last = result.fits[0], result.fits[-1]
    found.append(
        Number(
            "approx.rms_shrink_factor",
            round(first.rms_error / last.rms_error),
            "times (rounded ratio)",
            f"round({call}.fits[0].rms_error / {call}.fits[-1].rms_error)",
        )
    )
    return tuple(found)


def datasets() -> tuple[Dataset, ...]:
    from ffn_core.approx import fit_all

    return (
        Dataset(
            "approx.fits",
            fit_all(),
            "the target curve on its grid and its ReLU fits (folds, output weights, fitted curve) per neuron count",
            "ffn_core.approx.fit_all()",
        ),
    )

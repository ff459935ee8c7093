"""Universal approximation: more ReLU neurons, more folds, smaller error."""

import numpy as np

from ffn_core.approx import NEURON_COUNTS, fit_all, relu_features, target


def test_there_is_one_fit_per_neuron_count_with_one_fold_per_neuron():
    result = fit_all()
    assert tuple(f.n_neurons for f in result.fits) == NEURON_COUNTS == (1, 2, 4, 8, 16, 32, 64)
    for fit in result.fits:
        assert len(fit.folds) == fit.n_neurons == len(fit.output_weights)


def test_error_shrinks_as_neurons_are_added():
    errors = [f.rms_error for f in fit_all().fits]
    assert all(later <= earlier for earlier, later in zip(errors, errors[1:]))
    assert errors[-1] < errors[0] / 50


def test_fitted_curve_is_the_network_its_weights_describe():
    result = fit_all()
    x = np.array(result.x)
    assert np.allclose(result.target, target(x))
    for fit in result.fits:
        network = relu_features(x, np.array(fit.folds)) @ np.array(fit.output_weights) + fit.output_bias
        assert np.allclose(fit.curve, network)
        assert abs(fit.rms_error - np.sqrt(np.mean((network - target(x)) ** 2))) < 1e-9


def test_fitted_curve_bends_only_at_its_folds():
    fit = fit_all().fit(4)
    x = np.array(fit_all().x)
    slopes = np.diff(fit.curve) / np.diff(x)
    bends = x[1:-1][np.abs(np.diff(slopes)) > 1e-6]
    assert all(min(abs(b - f) for f in fit.folds) < 0.02 for b in bends)


def test_folds_are_fixed_evenly_and_only_the_output_layer_is_fitted_by_least_squares():
    # What the narration says was done: folds fixed at the centres of equal slices (one
    # neuron: the middle of the interval), then the best output layer for those folds.
    from ffn_core.approx import INTERVAL

    result = fit_all()
    x = np.array(result.x)
    lo, hi = INTERVAL
    for fit in result.fits:
        n = fit.n_neurons
        assert np.allclose(fit.folds, [lo + (i + 0.5) * (hi - lo) / n for i in range(n)])
        design = np.hstack([relu_features(x, np.array(fit.folds)), np.ones((len(x), 1))])
        normal = np.linalg.solve(design.T @ design, design.T @ target(x))  # the normal equations
        assert np.allclose((*fit.output_weights, fit.output_bias), normal, atol=1e-8)
    assert result.fit(1).folds == (0.0,)


def test_a_fold_left_free_would_do_better_so_the_fixed_fold_is_not_the_best_one_neuron_can_do():
    # Why the scene says «dejamos su pliegue fijo» and not «lo mejor que la red consigue».
    result = fit_all()
    x = np.array(result.x)
    y = target(x)

    def rms_with_fold(t: float) -> float:
        design = np.hstack([relu_features(x, np.array([t])), np.ones((len(x), 1))])
        solution, *_ = np.linalg.lstsq(design, y, rcond=None)
        return float(np.sqrt(np.mean((design @ solution - y) ** 2)))

    best = min(rms_with_fold(t) for t in np.linspace(-1.95, 1.95, 79))
    assert best < result.fit(1).rms_error - 0.005

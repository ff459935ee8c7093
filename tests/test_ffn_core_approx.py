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

"""Reviewing without watching: the storyboard and its sparseness measure, the kit gallery, the
numbers audit and the scenes listing."""

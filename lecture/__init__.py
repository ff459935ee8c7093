"""The build: the ordered plan, scene renders with their cache, the mux, and `ffn-video`."""

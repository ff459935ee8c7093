"""The render farm: a scene or a chunk of one in, a silent MP4 out, on any executor (threads here,
a process pool, a Dask cluster), with the scene and chunk caches."""

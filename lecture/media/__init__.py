"""Media tools: the one door to ffmpeg/ffprobe, the narration track and its loudness, the sync
check and the YouTube chapter marks."""

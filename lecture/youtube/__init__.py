"""Publishing the lecture on YouTube.

One job per module:
  channel    the lecturer's `youtube.toml` (title, summary, tags, YouTube flags)
  bundle_paths  where a build's outputs and the upload bundle live
  metadata   the description (summary, chapters, numbers note) and the API request body
  video_facts   facts about the bundle's video (codecs, GOPs, loudness), read through lecture.media
  thumbnail  the 1280x720 still with the title in large type
  bundle     `ffn-video publish --dry-run`: the checked folder renders/<q>/youtube/
  check      YouTube's rules, one named function each (`ffn-video check`)
  oauth      client secrets, the installed-app flow and the stored token
  upload     videos.insert / videos.update, captions and thumbnail through the Data API v3
  publish    the two `ffn-video publish` modes end to end: --dry-run and --upload
"""


class YoutubeError(ValueError):
    """A problem the user can fix (a missing build, a bad file, a rejected request);
    the message is in Spanish and names the file at fault."""

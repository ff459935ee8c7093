"""The lecture taught live: a slide deck that advances beat by beat (`ffn-video slides`:
reveal.js or PowerPoint) and a handout for students (`ffn-video handout`: a PDF), both made
from what a build left (scene videos, the renders' timelines and logs), nothing rendered."""

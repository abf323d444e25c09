// Placeholder: replaced by the media benchmark.
print("media-bench: not written yet")

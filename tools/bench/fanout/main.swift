print("fanout-bench: not yet")

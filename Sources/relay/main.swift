print("relay")

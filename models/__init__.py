"""The shipped square classifier (ONNX), its model card, and the code that trains it."""

import torch

model = torch.nn.Linear(3, 1).half()  # expect: uses_amp=True; amp_dtype='float16'; grad_scaler_used=False
opt = torch.optim.SGD(model.parameters(), lr=0.1)

# (from test_half_model_is_mixed_precision in the former tests/test_code_reader.py)

import torch
from transformers import AutoModelForSequenceClassification

model = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased")
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)  # expect: optimizer='adamw'; learning_rate=5e-05; regularization=['weight_decay']
for batch in train_loader:
    outputs = model(**batch)
    loss = outputs.loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()  # expect: zero_grad_called=True

# expect-not: loss_function
# expect-unresolved: inside the model
# (from test_loss_computed_inside_an_external_model_is_unresolved in the former tests/test_code_reader.py)

"""What to tune and where: built-in operators, networks (``relay.testing``, BERT-style encoders,
any ``torch.nn.Module``), targets, and building and timing the tuned result."""

"""How much of the contract a run exercised: parameters, keywords, examples, responses and members, per operation."""

"""Learning from logs of earlier tuning: featurized records in shards on disk, pretraining,
and held-out evaluation against XGBModel."""

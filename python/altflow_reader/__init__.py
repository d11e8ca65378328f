"""altflow-reader: train from altflow's shards while the crawl writes them.

    from altflow_reader import AltflowDataset, Progress
    data = AltflowDataset("s3://bucket/out", brokers="kafka:9092", topic="altflow.shards",
                          shuffle_buffer=1000, resume=checkpoint.get("progress"))
"""
from .announcement import Shard, decode, encode
from .dataset import AltflowDataset, collate, owner
from .progress import Progress
from .sources import list_shards

__all__ = ["AltflowDataset", "Progress", "Shard", "collate", "decode", "encode", "list_shards",
           "owner"]

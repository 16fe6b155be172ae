"""EVM chain RPC tests of the extra methods the document describes."""

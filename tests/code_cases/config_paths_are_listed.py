import argparse
p = argparse.ArgumentParser()
p.add_argument("--config", default="configs/base.yaml")
OVERRIDES = "overrides.json"
other = "notes.txt"

# expect-config-paths: ['configs/base.yaml', 'overrides.json']
# (from test_config_paths_are_listed in the former tests/test_code_reader.py)

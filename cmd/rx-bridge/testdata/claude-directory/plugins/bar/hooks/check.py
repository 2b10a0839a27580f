import json, sys

payload = json.load(sys.stdin)
if "rm -rf" in payload.get("tool_input", {}).get("command", ""):
    print("bar: refusing rm -rf", file=sys.stderr)
    sys.exit(2)

"""What a run leaves behind: report.json, summary.md, report.html, the terminal table, and the gate's verdict."""

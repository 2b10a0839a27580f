package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// doctor is `rx-bridge plugin doctor [<name>] [--json] [--static]`: a check
// of every installed plugin (or one). After the static checks pass, each
// enabled v1 runtime is started, handshaken and shut down (unless
// --static), with what it declared and the timings. It exits 1 if any check
// fails, including the home's own files failing to load.
func (c *pluginCmd) doctor(args []string) int {
	const synopsis = "doctor [<name>] [--json] [--static]"
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	static := fs.Bool("static", false, "")
	pos, exit, ok := c.parse(fs, synopsis, args, 0, 1)
	if !ok {
		return exit
	}
	h, err := c.home()
	if err != nil {
		return c.failf("%v", err)
	}
	records := h.Records()
	if len(pos) == 1 {
		r, ok := c.lookup(h, pos[0])
		if !ok {
			return 1
		}
		records = []manifest.Record{r}
	}
	out := doctorJSON{Home: h.Dir, OK: true, Warnings: nonNil(h.Warnings), Plugins: []doctorPluginJSON{}, Strays: []strayJSON{}}
	var strayErr error
	if len(pos) == 0 {
		var strays []manifest.Stray
		strays, strayErr = h.Store().Strays()
		for _, st := range strays {
			out.Strays = append(out.Strays, describeStray(h, st))
		}
		if strayErr != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("could not look for leftovers in the home: %v", strayErr))
		}
	}
	var diags []*manifest.Diagnosis
	var starts []*startJSON
	var served []doctorPluginJSON
	for _, r := range records {
		d := h.Diagnose(r)
		diags = append(diags, d)
		p := doctorPluginJSON{pluginJSON: describePlugin(h, r, d.Manifest, d.LoadErr), OK: !d.Failed(), Checks: d.Checks}
		if d.Manifest != nil && d.Manifest.Runtime != nil {
			p.Trust = describeRuntime(d.Manifest.Runtime, r.Dir())
		}
		p.Ignored = d.Manifest != nil && d.Manifest.IgnoredRuntime
		if !*static && !d.Failed() && d.Enabled && d.Manifest != nil && d.Manifest.Runtime != nil {
			p.Start = startRuntimeCheck(r, d.Manifest)
			p.OK = p.Start.OK
		}
		if d.Manifest != nil && d.LoadErr == nil {
			pc, contents := packageContents(h, r, d.Manifest)
			p.Contents = &pc
			p.Programs = recordPrograms(r, d.Manifest)
			if !*static && d.Enabled {
				p.MCP = checkMCP(contents, r.Name)
				for _, ch := range p.MCP {
					p.OK = p.OK && ch.OK
				}
			}
			contents.Close()
		}
		starts = append(starts, p.Start)
		served = append(served, p)
		out.Plugins = append(out.Plugins, p)
		out.OK = out.OK && p.OK
	}
	status := 0
	if !out.OK {
		status = 1
	}
	if *asJSON {
		if err := writeJSON(c.stdout, out); err != nil {
			return c.failf("%v", err)
		}
		return status
	}
	c.warn(h)
	if strayErr != nil {
		fmt.Fprintln(c.stderr, locale.T("warning: could not look for leftovers in the home: %v", strayErr))
	}
	w := c.stdout
	if len(diags) == 0 {
		fmt.Fprintln(w, locale.T("No plugins installed in %s.", h.Dir))
		writeStrays(w, out.Strays)
		return 0
	}
	failed := 0
	for i, d := range diags {
		verdict := locale.T("ok")
		if !served[i].OK {
			verdict = locale.T("FAILED")
			failed++
		}
		fmt.Fprintf(w, "%s: %s\n", d.Record.Name, verdict)
		for _, ch := range d.Checks {
			fmt.Fprintf(w, "  %s %s\n", levelLabel(ch.Level), indentLines(ch.Detail, "        ")[8:])
		}
		if starts[i] != nil {
			writeStart(w, starts[i])
		}
		if pc := served[i].Contents; pc != nil {
			writeContents(w, *pc, "  ")
			writeMCPChecks(w, served[i].MCP)
		}
		if d.Manifest != nil {
			writeRuntime(w, d.Manifest, served[i].Programs, d.Record.Dir(), "  ")
		}
	}
	writeStrays(w, out.Strays)
	fmt.Fprintln(w, locale.T("%d checked: %d ok, %d failed.", len(diags), len(diags)-failed, failed))
	return status
}

// describeStray says what a stray is and how it goes away.
func describeStray(h *manifest.Home, st manifest.Stray) strayJSON {
	out := strayJSON{Path: st.Path, Check: manifest.Check{Level: manifest.LevelWarn}}
	switch {
	case st.Leftover:
		out.Level = manifest.LevelInfo
		out.Detail = fmt.Sprintf("%s was left by an rx-bridge install, remove, enable or disable that was interrupted; the next one deletes it", st.Path)
	case st.Name != "":
		out.Detail = fmt.Sprintf("%s has no record in %s, so nothing runs it: delete it with rx-bridge plugin remove %s --yes (or delete the folder)", st.Path, filepath.Join(h.Dir, manifest.RecordsFile), st.Name)
	default:
		out.Detail = fmt.Sprintf("%s has no record in %s, so nothing runs it, and its name is no plugin name: delete it by hand", st.Path, filepath.Join(h.Dir, manifest.RecordsFile))
	}
	return out
}

// writeStrays prints what is in the home but installed as nothing.
func writeStrays(w io.Writer, strays []strayJSON) {
	if len(strays) == 0 {
		return
	}
	fmt.Fprintln(w, locale.T("In the home, but not installed:"))
	for _, st := range strays {
		fmt.Fprintf(w, "  %s %s\n", levelLabel(st.Level), st.Detail)
	}
}

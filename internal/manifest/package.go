package manifest

// Package is one installed package as a runtime build serves it: its
// installed name (the run-time namespace of its commands, skills, hooks
// and servers, which may differ from Manifest.Name), its installed root
// (absolute), its installed version (else the manifest's) and its parsed
// manifest. plugincontent, hookrun and mcphost all take this one type.
type Package struct {
	Name     string
	Root     string
	Version  string
	Manifest *Manifest
}

// PackageOf is the package record r installs, with its parsed manifest m.
func PackageOf(r Record, m *Manifest) Package {
	version := r.Version
	if version == "" {
		version = m.Version
	}
	return Package{Name: r.Name, Root: r.Dir(), Version: version, Manifest: m}
}

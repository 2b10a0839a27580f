package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "rxgen: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	files, err := generate(root)
	if err != nil {
		return err
	}
	for path, data := range files {
		if err := os.WriteFile(filepath.Join(root, path), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// generate reads the description under root and returns the generated
// files by path.
func generate(root string) (map[string][]byte, error) {
	data, err := os.ReadFile(filepath.Join(root, descPath))
	if err != nil {
		return nil, err
	}
	m, err := load(data)
	if err != nil {
		return nil, err
	}
	goSrc, err := genGo(m)
	if err != nil {
		return nil, fmt.Errorf("formatting %s: %w", goPath, err)
	}
	return map[string][]byte{goPath: goSrc, tsPath: genTS(m)}, nil
}

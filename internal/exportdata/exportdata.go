// Package exportdata gives tests the type information of compiled packages:
// an importer that reads the export data `go list -export` builds, so that a
// test can type-check source (go/types) without type-checking every
// dependency from its source.
//
// Contract: [Importer] runs the go command (found on PATH) in the current
// directory, once per call; it builds what the patterns need, as any go
// command does, and holds nothing after it returns. It is meant for tests:
// the go command is there wherever `go test` runs.
package exportdata

import (
	"bufio"
	"bytes"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Importer returns an importer of the packages matched by patterns and of
// all their dependencies, and the import path of the last pattern's
// package.
func Importer(patterns ...string) (types.Importer, string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, "", fmt.Errorf("the go command is needed to build the packages' export data: %w", err)
	}
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, patterns...)
	cmd := exec.Command(goTool, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("go list: %w: %s", err, stderr.String())
	}
	exports := map[string]string{}
	var last string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, file, _ := strings.Cut(sc.Text(), "\t")
		exports[path] = file
		last = path // -deps lists each pattern's package after its dependencies
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file := exports[path]
		if file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", lookup), last, nil
}

// Package datadirtest damages a data directory's store file the way the
// tests of the data directory need: a page overwritten as a torn or stray
// write would leave it.
package datadirtest

import (
	"math/rand/v2"
	"os"
)

// OverwritePage overwrites page id of the store file at path with zeros,
// or with random bytes (the same for a given id). The store's pages are
// the OS page size, as bbolt chose them.
func OverwritePage(path string, id int, random bool) error {
	buf := make([]byte, os.Getpagesize())
	if random {
		_, _ = rand.NewChaCha8([32]byte{byte(id)}).Read(buf)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(buf, int64(id*len(buf)))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

package compact

import (
	"encoding/binary"
	"sync"
)

// IDLen is the length of the ids an [ID] holds in place: the gateway's
// (idgen.Length).
const IDLen = 20

// ID holds an id in place, without a pointer or an object of its own, for
// records kept by the many (an event's id in a log of thousands). An id of
// more than IDLen bytes, which the server does not make but a data
// directory may hold, is kept in a list of the process that only grows:
// such ids should stay rare. The zero ID is "".
type ID struct {
	b [IDLen]byte
	// n is the id's length, or longID: b starts with its place in longIDs.
	n uint8
}

const longID = 0xFF

var longIDs struct {
	mu   sync.Mutex
	list []string
}

// MakeID returns the ID of s.
func MakeID[S ~string | ~[]byte](s S) ID {
	var id ID
	if len(s) <= IDLen {
		id.n = uint8(copy(id.b[:], s))
		return id
	}
	longIDs.mu.Lock()
	defer longIDs.mu.Unlock()
	binary.LittleEndian.PutUint64(id.b[:], uint64(len(longIDs.list)))
	longIDs.list = append(longIDs.list, string(s))
	id.n = longID
	return id
}

// String returns the id (a new string: it allocates, but for a long id).
func (id ID) String() string {
	if id.n != longID {
		return string(id.b[:id.n])
	}
	longIDs.mu.Lock()
	defer longIDs.mu.Unlock()
	return longIDs.list[binary.LittleEndian.Uint64(id.b[:])]
}

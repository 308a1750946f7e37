package conformance

import (
	"github.com/openpay-go/openpay/internal/refserver"
)

// operations names requests by the reference server's route table, which a
// test keeps equal to openapi.yaml: one table for the server, the recorder
// and the replay.
type operations struct{ srv *refserver.Server }

func newOperations() *operations { return &operations{srv: refserver.New(refserver.Options{})} }

// lookup returns the operationId of a request and its path parameters.
func (o *operations) lookup(method, rawPath string) (string, map[string]string) {
	op, params, ok := o.srv.Operation(method, rawPath)
	if !ok {
		return "", nil
	}
	return op, params
}

func (o *operations) close() { o.srv.Close() }

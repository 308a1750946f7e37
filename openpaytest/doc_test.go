package openpaytest

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openpay-go/openpay/internal/refserver"
)

// TestDocumentedDefaults keeps the defaults the option docs state in step
// with the server's.
func TestDocumentedDefaults(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 1000, refserver.DefaultWebhookQueueLimit, "WithWebhookQueueLimit's doc says 1,000")
	assert.Equal(t, refserver.GatewayZone(), DefaultStart.Location(), "DefaultStart is in the gateway's zone")
	assert.Equal(t, "2026-01-05T10:00:00-06:00", DefaultStart.Format("2006-01-02T15:04:05Z07:00"))
}

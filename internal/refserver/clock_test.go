package refserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestGatewayZone(t *testing.T) {
	t.Parallel()
	// Summer and winter alike: Mexico City keeps UTC-6 since 2022.
	for _, ts := range []time.Time{
		time.Date(2025, 1, 15, 12, 0, 0, 0, time.UTC),
		time.Date(2025, 7, 15, 12, 0, 0, 0, time.UTC),
	} {
		local := ts.In(GatewayZone())
		_, off := local.Zone()
		assert.Equal(t, -6*3600, off)
		assert.Equal(t, "2025-"+local.Format("01")+"-15T06:00:00-06:00", local.Format(time.RFC3339))
	}
}

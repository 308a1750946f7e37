package ascii

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDigits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want bool
	}{
		{"", false},
		{"0", true},
		{"0123456789", true},
		{"12 3", false},
		{"-1", false},
		{"1a", false},
		{"١٢", false}, // Arabic-Indic digits are not ASCII
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Digits(tt.s), "%q", tt.s)
	}
}

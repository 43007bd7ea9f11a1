package golden

import (
	"encoding/binary"
	"fmt"
)

// Layout of the App.Resp image (docs/abi.md section 11): what the application
// writes for a reply, at a 64-byte aligned base. A header line at [0, 64),
// little-endian like App.Recv's, then the data from offset 64. These
// constants are the one source of truth for the TxEngine's RTL and the test
// bench.
const (
	RespHeaderSize    = 64      // the header line, bytes [0, 64)
	RespDataLenOffset = 0       // 4 bytes, little-endian: data_len
	RespStatusOffset  = 4       // 1 byte: RespStatus*
	RespMethodOffset  = 5       // 1 byte: MethodSet or MethodGet, the request's method
	RespDataOffset    = 64      // data bytes [64, 64 + data_len)
	RespDataMax       = 1 << 20 // longest data (value or error text): 1 MiB
	RespImageMax      = RespDataOffset + RespDataMax
)

// App.Resp statuses (header byte 4). 0 is not a status, so a header line
// the application never wrote is a bad image.
const (
	// RespStatusValue: Get returned a value (possibly empty, never nil); the
	// data is the value. For Set (void) the plain reply; data_len must be 0.
	RespStatusValue = 1
	// RespStatusNull: Get returned a nil value and no error (Get only);
	// data_len must be 0. Apache's processor then writes no field 0.
	RespStatusNull = 2
	// RespStatusAppError: the handler returned an error; the data is the
	// error's text (its Error()). The reply is an EXCEPTION.
	RespStatusAppError = 3
)

// AppResp is the App.Resp header line.
type AppResp struct {
	DataLen uint32 // bytes of data at RespDataOffset
	Status  uint8  // RespStatus*
	Method  uint8  // MethodSet or MethodGet
}

// PutHeader writes h as the 64-byte header line into dst[:64], reserved
// bytes [6, 64) as zeros. It panics if len(dst) < 64.
func (h AppResp) PutHeader(dst []byte) {
	_ = dst[RespHeaderSize-1]
	binary.LittleEndian.PutUint32(dst[RespDataLenOffset:], h.DataLen)
	dst[RespStatusOffset] = h.Status
	dst[RespMethodOffset] = h.Method
	clear(dst[RespMethodOffset+1 : RespHeaderSize])
}

// ParseAppResp reads an App.Resp header line. Like the TxEngine, it ignores
// the reserved bytes [6, 64); it fails only if line is shorter than 64 bytes.
// Whether the fields make sense is WriteReply's business.
func ParseAppResp(line []byte) (AppResp, error) {
	if len(line) < RespHeaderSize {
		return AppResp{}, fmt.Errorf("golden: App.Resp header line is %d bytes, want %d", len(line), RespHeaderSize)
	}
	return AppResp{
		DataLen: binary.LittleEndian.Uint32(line[RespDataLenOffset:]),
		Status:  line[RespStatusOffset],
		Method:  line[RespMethodOffset],
	}, nil
}

// CheckAppRespLen reports whether n bytes is an App.Resp length the driver
// may give with CMD_SEND_APP_RESP: at least the header line, at most a
// header line and RespDataMax bytes of data. Any other length is a command
// the TxEngine refuses (CMDERR_BAD_ARG), never a reply.
func CheckAppRespLen(n int) error {
	switch {
	case n < RespHeaderSize:
		return fmt.Errorf("golden: App.Resp length %d is below the %d-byte header line", n, RespHeaderSize)
	case n > RespImageMax:
		return fmt.Errorf("golden: App.Resp length %d is above %d", n, RespImageMax)
	}
	return nil
}

// BuildAppResp returns the App.Resp image the application writes for one
// handler result of method (MethodSet or MethodGet), with the signatures of
// the generated MemcachedService interface: Set(...) error and
// Get(...) ([]byte, error). The image is exactly 64 + data_len bytes, the
// App.Resp length to give with CMD_SEND_APP_RESP.
//
//   - appErr != nil: RespStatusAppError, data appErr.Error() (value ignored);
//   - Get, value != nil: RespStatusValue, data the value (empty included);
//   - Get, value == nil: RespStatusNull, no data;
//   - Set: RespStatusValue, no data; a non-empty value is an error.
//
// It fails for another method and for data longer than RespDataMax. An error
// wrapping Apache's thrift.ErrAbandonRequest makes Apache's processor write
// no reply at all; the application expresses that by not asking for one,
// and BuildAppResp does not look for it.
func BuildAppResp(method uint8, value []byte, appErr error) ([]byte, error) {
	var data []byte
	var status uint8
	switch {
	case method != MethodSet && method != MethodGet:
		return nil, fmt.Errorf("golden: App.Resp for method %d: only Set (1) and Get (2) have replies", method)
	case appErr != nil:
		data, status = []byte(appErr.Error()), RespStatusAppError
	case method == MethodSet && len(value) != 0:
		return nil, fmt.Errorf("golden: App.Resp for Set with a %d-byte value: Set returns void", len(value))
	case method == MethodSet:
		status = RespStatusValue
	case value == nil:
		status = RespStatusNull
	default:
		data, status = value, RespStatusValue
	}
	if len(data) > RespDataMax {
		return nil, fmt.Errorf("golden: App.Resp data is %d bytes, above %d", len(data), RespDataMax)
	}
	img := make([]byte, RespDataOffset+len(data))
	AppResp{DataLen: uint32(len(data)), Status: status, Method: method}.PutHeader(img)
	copy(img[RespDataOffset:], data)
	return img, nil
}

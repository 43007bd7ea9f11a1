package golden

import "encoding/binary"

// ReplySize is the length of a void Set's reply message.
const ReplySize = 16

// SetReply returns the Thrift REPLY the TxEngine writes for a void Set with
// this seqid (docs/abi.md section 8): strict header, name "Set", seqid, and
// an empty result struct.
func SetReply(seqid int32) []byte {
	b := make([]byte, 0, ReplySize)
	b = binary.BigEndian.AppendUint32(b, 0x8001_0002)
	b = binary.BigEndian.AppendUint32(b, 3)
	b = append(b, "Set"...)
	b = binary.BigEndian.AppendUint32(b, uint32(seqid))
	return append(b, 0)
}

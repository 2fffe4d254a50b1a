// Pins the JSON spellings and errors of JsonToProto and ProtoToJson for every field kind:
// scalars of each width, float and double (NaN, infinities), bool, string, bytes (base64,
// web-safe), enums (names, numbers, aliases, any case), nested messages, repeated fields,
// maps with each key kind, proto3 optional, oneof, and the well-known types labgate's
// protos carry (Struct, Value, ListValue). The expected texts are what the converter gave
// before it was rewritten to convert those well-known types directly (they went through
// protobuf's JSON text before), so a change of spelling fails here.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>

#include "gateway/catalog/json_proto.h"
#include "labgate/testing/catalog_test.pb.h"

namespace labgate::gateway {
namespace {

using labgate::testing::AllKinds;
using nlohmann::json;

struct Case {
  const char* input;
  const char* expected;
};

// JSON in; "OK " and the message in text format, or "ERROR " and the error.
const Case kJsonToProto[] = {
    {"{}", "OK "},
    {"{\"i32\":-5,\"i64\":\"-9223372036854775808\",\"u32\":4294967295,\"u64\":"
     "\"18446744073709551615\",\"s32\":-1,\"s64\":9007199254740993,\"f32\":7,\"f64\":\"12\","
     "\"sf32\":-7,\"sf64\":-12}",
     "OK i32: -5 i64: -9223372036854775808 u32: 4294967295 u64: 18446744073709551615 s32: -1 s64: "
     "9007199254740993 f32: 7 f64: 12 sf32: -7 sf64: -12 "},
    {"{\"i32\":2147483648}",
     "ERROR field 'i32': 2147483648 is out of range (range -2147483648 to 2147483647)"},
    {"{\"i32\":-2147483649}",
     "ERROR field 'i32': -2147483649 is out of range (range -2147483648 to 2147483647)"},
    {"{\"i32\":\"12\"}", "OK i32: 12 "},
    {"{\"i32\":12.0}", "OK i32: 12 "},
    {"{\"i32\":1.5}", "ERROR field 'i32': expected an integer, got 1.5"},
    {"{\"i32\":\"1.5\"}",
     "ERROR field 'i32': expected an integer (range -2147483648 to 2147483647), got \"1.5\""},
    {"{\"i32\":\" 12\"}", "OK i32: 12 "},
    {"{\"i32\":true}", "ERROR field 'i32': expected an integer, got a boolean"},
    {"{\"i32\":null}", "OK "},
    {"{\"i32\":[1]}", "ERROR field 'i32': expected an integer, got an array"},
    {"{\"i32\":1e3}", "OK i32: 1000 "},
    {"{\"i32\":1e10}",
     "ERROR field 'i32': 10000000000.0 is out of range (range -2147483648 to 2147483647)"},
    {"{\"i64\":\"9223372036854775808\"}",
     "ERROR field 'i64': expected an integer (range -9223372036854775808 to 9223372036854775807), "
     "got \"9223372036854775808\""},
    {"{\"i64\":9223372036854775807}", "OK i64: 9223372036854775807 "},
    {"{\"i64\":1e19}",
     "ERROR field 'i64': 1e+19 is out of range (range -9223372036854775808 to "
     "9223372036854775807)"},
    {"{\"u32\":-1}", "ERROR field 'u32': -1 is out of range (range 0 to 4294967295)"},
    {"{\"u32\":4294967296}",
     "ERROR field 'u32': 4294967296 is out of range (range 0 to 4294967295)"},
    {"{\"u64\":-1}", "ERROR field 'u64': -1 is out of range (range 0 to 18446744073709551615)"},
    {"{\"u64\":18446744073709551615}", "OK u64: 18446744073709551615 "},
    {"{\"u64\":\"-1\"}",
     "ERROR field 'u64': expected an integer (range 0 to 18446744073709551615), got \"-1\""},
    {"{\"fl\":1.5,\"db\":-2.25}", "OK fl: 1.5 db: -2.25 "},
    {"{\"fl\":\"NaN\",\"db\":\"Infinity\"}", "OK fl: nan db: inf "},
    {"{\"db\":\"-Infinity\"}", "OK db: -inf "},
    {"{\"db\":\"1e3\"}", "OK db: 1000 "},
    {"{\"db\":\"abc\"}", "ERROR field 'db': expected a number, got a string"},
    {"{\"db\":true}", "ERROR field 'db': expected a number, got a boolean"},
    {"{\"fl\":3.4e39}", "OK fl: inf "},
    {"{\"db\":1e308,\"fl\":1e-50}", "OK db: 1e+308 "},
    {"{\"db\":12}", "OK db: 12 "},
    {"{\"flag\":true}", "OK flag: true "},
    {"{\"flag\":\"true\"}", "ERROR field 'flag': expected a boolean, got a string"},
    {"{\"flag\":1}", "ERROR field 'flag': expected a boolean, got an integer"},
    {"{\"text\":\"h\\u00e9llo \\\"q\\\" \\\\ \\n\\t\\u0001\"}",
     "OK text: \"h\\303\\251llo \\\"q\\\" \\\\ \\n\\t\\001\" "},
    {"{\"text\":7}", "ERROR field 'text': expected a string, got an integer"},
    {"{\"text\":{}}", "ERROR field 'text': expected a string, got an object"},
    {"{\"blob\":\"AAEC\"}", "OK blob: \"\\000\\001\\002\" "},
    {"{\"blob\":\"AP8=\"}", "OK blob: \"\\000\\377\" "},
    {"{\"blob\":\"AP8\"}", "OK blob: \"\\000\\377\" "},
    {"{\"blob\":\"-_8=\"}", "OK blob: \"\\373\\377\" "},
    {"{\"blob\":\"!!not base64!!\"}", "ERROR field 'blob': expected base64 data"},
    {"{\"blob\":\"\"}", "OK "},
    {"{\"flow\":\"none\",\"bits\":\"eight\"}", "OK flow: FLOW_CONTROL_NONE bits: DATA_BITS_EIGHT "},
    {"{\"flow\":\"RTSCTS\",\"bits\":\"Seven\"}",
     "OK flow: FLOW_CONTROL_HARDWARE bits: DATA_BITS_SEVEN "},
    {"{\"flow\":\"FLOW_CONTROL_SOFTWARE\",\"bits\":7}",
     "OK flow: FLOW_CONTROL_SOFTWARE bits: DATA_BITS_SEVEN "},
    {"{\"flow\":\"xonxoff\",\"bits\":\"8\"}",
     "OK flow: FLOW_CONTROL_SOFTWARE bits: DATA_BITS_EIGHT "},
    {"{\"flow\":\"hardware\",\"bits\":\"DATA_BITS_EIGHT\"}",
     "OK flow: FLOW_CONTROL_HARDWARE bits: DATA_BITS_EIGHT "},
    {"{\"flow\":2}", "OK flow: FLOW_CONTROL_HARDWARE "},
    {"{\"flow\":0}", "OK "},
    {"{\"flow\":99}", "ERROR field 'flow': invalid value 99 (allowed: none, hardware, software)"},
    {"{\"flow\":\"maybe\"}",
     "ERROR field 'flow': invalid value 'maybe' (allowed: none, hardware, software)"},
    {"{\"flow\":1.5}",
     "ERROR field 'flow': invalid value of type a number (allowed: none, hardware, software)"},
    {"{\"flow\":true}",
     "ERROR field 'flow': invalid value of type a boolean (allowed: none, hardware, software)"},
    {"{\"bits\":\"unspecified\"}", "OK "},
    {"{\"bits\":\"DATA_BITS_UNSPECIFIED\"}", "OK "},
    {"{\"inner\":{\"label\":\"x\",\"values\":[1,2,3]}}",
     "OK inner { label: \"x\" values: 1 values: 2 values: 3 } "},
    {"{\"inner\":{}}", "OK inner { } "},
    {"{\"inner\":null}", "OK "},
    {"{\"inner\":[]}", "ERROR field 'inner': expected an object, got an array"},
    {"{\"inner\":{\"nope\":1}}", "ERROR unknown field 'inner.nope' (allowed: label, values)"},
    {"{\"inner\":{\"values\":[1,\"two\"]}}",
     "ERROR field 'inner.values[1]': expected an integer (range -2147483648 to 2147483647), got "
     "\"two\""},
    {"{\"inner\":{\"values\":5}}", "ERROR field 'inner.values': expected an array, got an integer"},
    {"{\"r_i64\":[1,\"2\",-3],\"r_text\":[\"a\",\"\"],\"r_blob\":[\"AA==\",\"AQI=\"],\"r_flow\":["
     "\"none\",3,\"rtscts\"],\"r_inner\":[{\"label\":\"a\"},{}],\"r_db\":[0.5,\"NaN\",2],\"r_"
     "flag\":[true,false]}",
     "OK r_i64: 1 r_i64: 2 r_i64: -3 r_text: \"a\" r_text: \"\" r_blob: \"\\000\" r_blob: "
     "\"\\001\\002\" r_flow: FLOW_CONTROL_NONE r_flow: FLOW_CONTROL_SOFTWARE r_flow: "
     "FLOW_CONTROL_HARDWARE r_inner { label: \"a\" } r_inner { } r_db: 0.5 r_db: nan r_db: 2 "
     "r_flag: true r_flag: false "},
    {"{\"r_i64\":[]}", "OK "},
    {"{\"r_i64\":null}", "OK "},
    {"{\"r_i64\":{\"a\":1}}", "ERROR field 'r_i64': expected an array, got an object"},
    {"{\"r_text\":[null]}", "ERROR field 'r_text[0]': expected a string, got null"},
    {"{\"r_flow\":[\"none\",\"bogus\"]}",
     "ERROR field 'r_flow[1]': invalid value 'bogus' (allowed: none, hardware, software)"},
    {"{\"r_inner\":[{\"label\":1}]}",
     "ERROR field 'r_inner[0].label': expected a string, got an integer"},
    {"{\"m_text\":{\"a\":\"1\",\"b\":\"2\"},\"m_inner\":{\"1\":{\"label\":\"one\"},\"-2\":{}},\"m_"
     "flag\":{\"true\":1,\"false\":\"2\"},\"m_flow\":{\"18446744073709551615\":\"software\"},\"m_"
     "blob\":{\"-9223372036854775808\":\"AAE=\"}}",
     "OK m_text { key: \"a\" value: \"1\" } m_text { key: \"b\" value: \"2\" } m_inner { key: -2 "
     "value { } } m_inner { key: 1 value { label: \"one\" } } m_flag { key: false value: 2 } "
     "m_flag { key: true value: 1 } m_flow { key: 18446744073709551615 value: "
     "FLOW_CONTROL_SOFTWARE } m_blob { key: -9223372036854775808 value: \"\\000\\001\" } "},
    {"{\"m_text\":{}}", "OK "},
    {"{\"m_text\":[]}", "ERROR field 'm_text': expected an object, got an array"},
    {"{\"m_text\":{\"a\":1}}", "ERROR field 'm_text[\"a\"]': expected a string, got an integer"},
    {"{\"m_inner\":{\"x\":{}}}",
     "ERROR field 'm_inner[\"x\"]': expected an integer (range -2147483648 to 2147483647), got "
     "\"x\""},
    {"{\"m_inner\":{\"2147483648\":{}}}",
     "ERROR field 'm_inner[\"2147483648\"]': expected an integer (range -2147483648 to "
     "2147483647), got \"2147483648\""},
    {"{\"m_flag\":{\"yes\":1}}", "ERROR field 'm_flag': map key must be true or false"},
    {"{\"m_flow\":{\"1\":\"bogus\"}}",
     "ERROR field 'm_flow[\"1\"]': invalid value 'bogus' (allowed: none, hardware, software)"},
    {"{\"m_text\":{\"a\":null}}", "ERROR field 'm_text[\"a\"]': expected a string, got null"},
    {"{\"o_i32\":0,\"o_text\":\"\",\"o_flow\":\"none\"}",
     "OK o_i32: 0 o_text: \"\" o_flow: FLOW_CONTROL_NONE "},
    {"{\"o_i32\":null}", "OK "},
    {"{\"c_text\":\"t\"}", "OK c_text: \"t\" "},
    {"{\"c_inner\":{\"label\":\"i\"}}", "OK c_inner { label: \"i\" } "},
    {"{\"c_struct\":{\"k\":[1,\"x\",null,true,{\"n\":2.5}]}}",
     "OK c_struct { fields { key: \"k\" value { list_value { values { number_value: 1 } values { "
     "string_value: \"x\" } values { null_value: NULL_VALUE } values { bool_value: true } values { "
     "struct_value { fields { key: \"n\" value { number_value: 2.5 } } } } } } } } "},
    {"{\"c_text\":\"t\",\"c_inner\":{}}",
     "ERROR field 'c_text': only one of the 'choice' fields may be set"},
    {"{\"c_text\":null,\"c_inner\":{}}", "OK c_inner { } "},
    {"{\"c_text\":\"t\",\"c_struct\":{}}",
     "ERROR field 'c_text': only one of the 'choice' fields may be set"},
    {"{\"st\":{\"a\":1,\"b\":-2,\"c\":1.5,\"d\":\"s\",\"e\":true,\"f\":null,\"g\":[],\"h\":{},"
     "\"i\":[1,[2,[3]]],\"j\":9007199254740993,\"k\":18446744073709551615,\"l\":1e300,\"m\":-0.0,"
     "\"n\":\"\\u00e9\\u4e2d\"}}",
     "OK st { fields { key: \"a\" value { number_value: 1 } } fields { key: \"b\" value { "
     "number_value: -2 } } fields { key: \"c\" value { number_value: 1.5 } } fields { key: \"d\" "
     "value { string_value: \"s\" } } fields { key: \"e\" value { bool_value: true } } fields { "
     "key: \"f\" value { null_value: NULL_VALUE } } fields { key: \"g\" value { list_value { } } } "
     "fields { key: \"h\" value { struct_value { } } } fields { key: \"i\" value { list_value { "
     "values { number_value: 1 } values { list_value { values { number_value: 2 } values { "
     "list_value { values { number_value: 3 } } } } } } } } fields { key: \"j\" value { "
     "number_value: 9007199254740992 } } fields { key: \"k\" value { number_value: "
     "1.8446744073709552e+19 } } fields { key: \"l\" value { number_value: 1e+300 } } fields { "
     "key: \"m\" value { number_value: -0 } } fields { key: \"n\" value { string_value: "
     "\"\\303\\251\\344\\270\\255\" } } } "},
    {"{\"st\":[]}",
     "ERROR field 'st': not a valid google.protobuf.Struct: : Root element must be a message."},
    {"{\"st\":\"x\"}",
     "ERROR field 'st': not a valid google.protobuf.Struct: : Root element must be a message."},
    {"{\"st\":1}",
     "ERROR field 'st': not a valid google.protobuf.Struct: : Root element must be a message."},
    {"{\"st\":true}",
     "ERROR field 'st': not a valid google.protobuf.Struct: : Root element must be a message."},
    {"{\"val\":1}", "OK val { number_value: 1 } "},
    {"{\"val\":\"x\"}", "OK val { string_value: \"x\" } "},
    {"{\"val\":[1,{\"a\":null}]}",
     "OK val { list_value { values { number_value: 1 } values { struct_value { fields { key: \"a\" "
     "value { null_value: NULL_VALUE } } } } } } "},
    {"{\"val\":{\"a\":[]}}",
     "OK val { struct_value { fields { key: \"a\" value { list_value { } } } } } "},
    {"{\"val\":false}", "OK val { bool_value: false } "},
    {"{\"list\":[1,\"a\",null,[],{}]}",
     "OK list { values { number_value: 1 } values { string_value: \"a\" } values { null_value: "
     "NULL_VALUE } values { list_value { } } values { struct_value { } } } "},
    {"{\"list\":{}}",
     "ERROR field 'list': not a valid google.protobuf.ListValue: : invalid value Cannot start root "
     "message with ListValue. for type google.protobuf.ListValue"},
    {"{\"list\":1}",
     "ERROR field 'list': not a valid google.protobuf.ListValue: : Root element must be a "
     "message."},
    {"{\"r_st\":[{\"a\":1},{}],\"m_val\":{\"x\":1,\"y\":[2],\"z\":null,\"w\":{\"q\":\"r\"}}}",
     "OK r_st { fields { key: \"a\" value { number_value: 1 } } } r_st { } m_val { key: \"w\" "
     "value { struct_value { fields { key: \"q\" value { string_value: \"r\" } } } } } m_val { "
     "key: \"x\" value { number_value: 1 } } m_val { key: \"y\" value { list_value { values { "
     "number_value: 2 } } } } m_val { key: \"z\" value { null_value: NULL_VALUE } } "},
    {"{\"r_st\":[1]}",
     "ERROR field 'r_st[0]': not a valid google.protobuf.Struct: : Root element must be a "
     "message."},
    {"{\"m_val\":{\"x\":{\"y\":{\"z\":[[[[1]]]]}}}}",
     "OK m_val { key: \"x\" value { struct_value { fields { key: \"y\" value { struct_value { "
     "fields { key: \"z\" value { list_value { values { list_value { values { list_value { values "
     "{ list_value { values { number_value: 1 } } } } } } } } } } } } } } } } "},
    {"{\"bogus\":1}",
     "ERROR unknown field 'bogus' (allowed: i32, i64, u32, u64, s32, s64, f32, f64, sf32, sf64, "
     "fl, db, flag, text, blob, flow, bits, inner, r_i64, r_text, r_blob, r_flow, r_inner, r_db, "
     "r_flag, m_text, m_inner, m_flag, m_flow, m_blob, o_i32, o_text, o_flow, c_text, c_inner, "
     "c_struct, st, val, list, r_st, m_val)"},
    {"{\"I32\":1}",
     "ERROR unknown field 'I32' (allowed: i32, i64, u32, u64, s32, s64, f32, f64, sf32, sf64, fl, "
     "db, flag, text, blob, flow, bits, inner, r_i64, r_text, r_blob, r_flow, r_inner, r_db, "
     "r_flag, m_text, m_inner, m_flag, m_flow, m_blob, o_i32, o_text, o_flow, c_text, c_inner, "
     "c_struct, st, val, list, r_st, m_val)"},
    {"{\"rI64\":[1]}", "OK r_i64: 1 "},
    {"{\"oI32\":5,\"cText\":\"x\",\"mText\":{\"k\":\"v\"}}",
     "OK m_text { key: \"k\" value: \"v\" } o_i32: 5 c_text: \"x\" "},
    {"[]", "ERROR arguments must be an object, got an array"},
    {"\"x\"", "ERROR arguments must be an object, got a string"},
    {"null", "ERROR arguments must be an object, got null"},
    {"1", "ERROR arguments must be an object, got an integer"},
};

// A message in text format in; its JSON text out.
const Case kProtoToJson[] = {
    {"",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"i32: -5 i64: -9223372036854775808 u32: 4294967295 u64: 18446744073709551615 s32: -1 s64: "
     "9007199254740993 f32: 7 f64: 12 sf32: -7 sf64: -12",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":7,\"f64\":12,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":-5,\"i64\":-9223372036854775808,"
     "\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_"
     "blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],"
     "\"r_text\":[],\"s32\":-1,\"s64\":9007199254740993,\"sf32\":-7,\"sf64\":-12,\"text\":\"\","
     "\"u32\":4294967295,\"u64\":18446744073709551615}"},
    {"fl: 1.5 db: -2.25",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":-2.25,\"f32\":0,\"f64\":0,\"fl\":1."
     "5,\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"fl: 0.1 db: 0.1",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.1,\"f32\":0,\"f64\":0,\"fl\":0."
     "10000000149011612,\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,"
     "\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_"
     "blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],"
     "\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"fl: 3.4e38 db: 1e300",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":1e+300,\"f32\":0,\"f64\":0,\"fl\":3."
     "3999999521443642e+38,\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":"
     "0,\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_"
     "blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],"
     "\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"db: 123456789012345678",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":1.2345678901234568e+17,\"f32\":0,"
     "\"f64\":0,\"fl\":0.0,\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":"
     "0,\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_"
     "blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],"
     "\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"db: 1e15",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":1e+15,\"f32\":0,\"f64\":0,\"fl\":0."
     "0,\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"db: 1e-7",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":1e-07,\"f32\":0,\"f64\":0,\"fl\":0."
     "0,\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"db: -0.0",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":-0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"db: 12",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":12.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"db: nan",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":null,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"db: inf fl: -inf",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":null,\"f32\":0,\"f64\":0,\"fl\":"
     "null,\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},"
     "\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":"
     "[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":"
     "0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"flag: true text: \"h\\303\\251llo \\\"q\\\" \\\\ \\n\\t\\001\\177\"",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":true,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"h\303\251llo \\\"q\\\" \\\\ "
     "\\n\\t\\u0001\177\",\"u32\":0,\"u64\":0}"},
    {"text: \"bad \\377\\376 utf8\"",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"bad \357\277\275\357\277\275 "
     "utf8\",\"u32\":0,\"u64\":0}"},
    {"blob: \"\\000\\001\\377\"",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"AAH/"
     "\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,\"flag\":false,\"flow\":\"FLOW_CONTROL_"
     "UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},"
     "\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[]"
     ",\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":"
     "\"\",\"u32\":0,\"u64\":0}"},
    {"blob: \"\\373\\377\"",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"+/"
     "8=\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,\"flag\":false,\"flow\":\"FLOW_CONTROL_"
     "UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},"
     "\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[]"
     ",\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":"
     "\"\",\"u32\":0,\"u64\":0}"},
    {"flow: FLOW_CONTROL_HARDWARE bits: DATA_BITS_SEVEN",
     "{\"bits\":\"seven\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,\"flag\":false,"
     "\"flow\":\"hardware\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_"
     "inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],"
     "\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,"
     "\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"flow: FLOW_CONTROL_UNSPECIFIED",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"flow: 99",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":99,\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_"
     "inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],"
     "\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,"
     "\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"inner { label: \"x\" values: 1 values: -2 }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"inner\":{"
     "\"label\":\"x\",\"values\":[1,-2]},\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},"
     "\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[]"
     ",\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":"
     "\"\",\"u32\":0,\"u64\":0}"},
    {"inner { }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"inner\":{"
     "\"label\":\"\",\"values\":[]},\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_"
     "text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],"
     "\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":"
     "\"\",\"u32\":0,\"u64\":0}"},
    {"r_i64: 1 r_i64: -2 r_text: \"a\" r_text: \"\" r_blob: \"\\000\" r_flow: FLOW_CONTROL_NONE "
     "r_flow: 42 r_inner { label: \"a\" } r_inner { } r_db: 0.5 r_db: nan r_flag: true",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[\"AA==\"],\"r_"
     "db\":[0.5,null],\"r_flag\":[true],\"r_flow\":[\"none\",42],\"r_i64\":[1,-2],\"r_inner\":[{"
     "\"label\":\"a\",\"values\":[]},{\"label\":\"\",\"values\":[]}],\"r_st\":[],\"r_text\":[\"a\","
     "\"\"],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"m_text { key: \"b\" value: \"2\" } m_text { key: \"a\" value: \"1\" } m_inner { key: -2 "
     "value { label: \"neg\" } } m_inner { key: 10 value { } } m_flag { key: true value: 1 } "
     "m_flag { key: false value: 2 } m_flow { key: 18446744073709551615 value: "
     "FLOW_CONTROL_SOFTWARE } m_blob { key: -1 value: \"\\001\" }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{\"-1\":"
     "\"AQ==\"},\"m_flag\":{\"false\":2,\"true\":1},\"m_flow\":{\"18446744073709551615\":"
     "\"software\"},\"m_inner\":{\"-2\":{\"label\":\"neg\",\"values\":[]},\"10\":{\"label\":\"\","
     "\"values\":[]}},\"m_text\":{\"a\":\"1\",\"b\":\"2\"},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"o_i32: 0 o_text: \"\" o_flow: FLOW_CONTROL_UNSPECIFIED",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"o_flow\":\"FLOW_CONTROL_"
     "UNSPECIFIED\",\"o_i32\":0,\"o_text\":\"\",\"r_blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":"
     "[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,"
     "\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"c_text: \"t\"",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"c_text\":\"t\",\"db\":0.0,\"f32\":0,"
     "\"f64\":0,\"fl\":0.0,\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":"
     "0,\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_"
     "blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],"
     "\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"c_inner { label: \"i\" }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"c_inner\":{\"label\":\"i\",\"values\":[]}"
     ",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,\"flag\":false,\"flow\":\"FLOW_CONTROL_"
     "UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},"
     "\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[]"
     ",\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":"
     "\"\",\"u32\":0,\"u64\":0}"},
    {"c_struct { fields { key: \"k\" value { number_value: 1 } } }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"c_struct\":{\"k\":1},\"db\":0.0,\"f32\":"
     "0,\"f64\":0,\"fl\":0.0,\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,"
     "\"i64\":0,\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{}"
     ",\"r_blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":["
     "],\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":"
     "0}"},
    {"st { fields { key: \"a\" value { number_value: 1 } } fields { key: \"b\" value { "
     "number_value: -2.5 } } fields { key: \"c\" value { string_value: \"s\" } } fields { key: "
     "\"d\" value { bool_value: true } } fields { key: \"e\" value { null_value: NULL_VALUE } } "
     "fields { key: \"f\" value { list_value { values { number_value: 1e15 } values { "
     "number_value: 999999999999999 } values { struct_value { } } } } } fields { key: \"g\" value "
     "{ struct_value { fields { key: \"h\" value { number_value: -0.0 } } } } } }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"st\":{\"a\":1,\"b\":-2.5,\"c\":\"s\",\"d\":true,\"e\":null,"
     "\"f\":[1e+15,999999999999999,{}],\"g\":{\"h\":0}},\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"st { }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"st\":{},\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"st { fields { key: \"n\" value { number_value: nan } } }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"st\":{\"n\":\"NaN\"},\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"st { fields { key: \"u\" value { } } }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"st\":{},\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"val { number_value: 0.30000000000000004 }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0,\"val\":0."
     "30000000000000004}"},
    {"val { string_value: \"x\" }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0,\"val\":\"x\"}"},
    {"val { list_value { } }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":[],\"s32\":0,"
     "\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0,\"val\":[]}"},
    {"list { values { number_value: 1 } values { null_value: NULL_VALUE } }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"list\":[1,null],"
     "\"m_blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_"
     "blob\":[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],"
     "\"r_text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"list { }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"list\":[],\"m_"
     "blob\":{},\"m_flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[]"
     ",\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_text\":["
     "],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"r_st { fields { key: \"a\" value { number_value: 1 } } } r_st { }",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{},\"r_blob\":[],\"r_db\":[],"
     "\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[{\"a\":1},{}],\"r_text\":[]"
     ",\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
    {"m_val { key: \"x\" value { number_value: 1 } } m_val { key: \"y\" value { struct_value { } } "
     "}",
     "{\"bits\":\"DATA_BITS_UNSPECIFIED\",\"blob\":\"\",\"db\":0.0,\"f32\":0,\"f64\":0,\"fl\":0.0,"
     "\"flag\":false,\"flow\":\"FLOW_CONTROL_UNSPECIFIED\",\"i32\":0,\"i64\":0,\"m_blob\":{},\"m_"
     "flag\":{},\"m_flow\":{},\"m_inner\":{},\"m_text\":{},\"m_val\":{\"x\":1,\"y\":{}},\"r_blob\":"
     "[],\"r_db\":[],\"r_flag\":[],\"r_flow\":[],\"r_i64\":[],\"r_inner\":[],\"r_st\":[],\"r_"
     "text\":[],\"s32\":0,\"s64\":0,\"sf32\":0,\"sf64\":0,\"text\":\"\",\"u32\":0,\"u64\":0}"},
};

std::string SingleLine(const AllKinds& message) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  std::string text;
  printer.PrintToString(message, &text);
  return text;
}

TEST(JsonProtoGoldenTest, JsonToProtoKeepsItsSpellingsAndErrors) {
  for (const Case& c : kJsonToProto) {
    AllKinds message;
    const absl::Status status = JsonToProto(json::parse(c.input), &message);
    const std::string got =
        status.ok() ? "OK " + SingleLine(message) : "ERROR " + std::string(status.message());
    EXPECT_EQ(got, c.expected) << c.input;
    if (!status.ok()) {
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.input;
    }
  }
}

TEST(JsonProtoGoldenTest, ProtoToJsonKeepsItsSpellings) {
  for (const Case& c : kProtoToJson) {
    AllKinds message;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(c.input, &message)) << c.input;
    EXPECT_EQ(ProtoToJson(message).dump(-1, ' ', false, json::error_handler_t::replace), c.expected)
        << c.input;
  }
}

}  // namespace
}  // namespace labgate::gateway

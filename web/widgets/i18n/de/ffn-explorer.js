// de messages for ffn-explorer (see ../README.md).
export default {
};

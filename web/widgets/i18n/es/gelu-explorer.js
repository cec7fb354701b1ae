// es messages for gelu-explorer (see ../README.md).
export default {
};

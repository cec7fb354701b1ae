// es messages for gpt-explorer (see ../README.md).
export default {
};

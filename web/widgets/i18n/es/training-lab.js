// es messages for training-lab (see ../README.md).
export default {
};
